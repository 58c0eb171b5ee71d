"""Fixtures for the sandbox tests.

The folders live under /var/tmp, not /tmp: inside the sandbox /tmp is private, so a fake home
there would simply be absent, and a write to it would land in the private /tmp; under /var/tmp
the sandbox sees them as they are, read-only, which is what the escape tests must prove.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engine.sandbox.helpers import SECRET, Runner, make_repo


@pytest.fixture
def base() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="hive-sandbox-test-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def home(base: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake $HOME with credential stores in it."""
    home = base / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text(SECRET)
    (home / ".netrc").write_text(SECRET)
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text(SECRET)
    (home / "notes.txt").write_text("original")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def project(base: Path, home: Path) -> Path:
    """A git repository with a project config, a .env and a secrets folder."""
    project = make_repo(base / "project")
    (project / ".ironhive").mkdir()
    (project / ".ironhive" / "permissions.yaml").write_text("rules: []\n")
    (project / ".env").write_text(f"API_KEY={SECRET}\n")
    (project / "secrets").mkdir()
    (project / "secrets" / "token").write_text(SECRET)
    return project


@pytest.fixture
def outside(base: Path) -> Path:
    """A folder outside the project with a file in it."""
    folder = base / "outside"
    folder.mkdir()
    (folder / "file.txt").write_text("original")
    return folder


@pytest.fixture
def run(project: Path, base: Path) -> Runner:
    return Runner(project, base / "data")
