"""What a session says at the start about the programs it passed over and about hive's own install."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.config.loader import Overrides, load_config
from engine.paths import user_config_dir
from engine.program_notices import program_notices
from engine.programs import INSIDE_WRITABLE
from engine.sandbox.base import NoSandbox
from tests.engine.sandbox.helpers import make_repo, require_bwrap
from tests.support.safe_folder import make_folder, program, safe_folder


@pytest.fixture
def safe() -> Iterator[Path]:
    with safe_folder() as folder:
        yield folder


def test_a_planted_rg_and_bash_are_named_once_and_what_is_used_instead(
    safe: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_repo(safe / "project")
    planted = make_folder(project / ".venv" / "bin")
    for name in ("rg", "bash", "unrelated"):
        program(planted, name)
    monkeypatch.setenv("PATH", f"{planted}{os.pathsep}{os.environ['PATH']}")

    notices = program_notices(load_config(project, Overrides(model="openai/test-model"), persist=False))

    said = "\n".join(notices)
    for name in ("rg", "bash"):
        assert said.count(f"skipped {planted / name} ({INSIDE_WRITABLE})") == 1, said
    assert "unrelated" not in said
    assert f"bash: skipped {planted / 'bash'} ({INSIDE_WRITABLE}); using /" in said


def test_nothing_to_say_when_nothing_was_passed_over(safe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = make_repo(safe / "project")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    config = load_config(project, Overrides(model="openai/test-model"), persist=False)
    assert program_notices(config) == ()


def test_hives_own_install_in_a_writable_root_is_said_to_be_kept_read_only(safe: Path) -> None:
    require_bwrap()
    project = make_repo(safe / "project")
    prefix = Path(os.path.realpath(sys.prefix))
    make_folder(user_config_dir())
    (user_config_dir() / "settings.yaml").write_text(f"sandbox:\n  writable_roots: ['{prefix.parent}']\n")

    notices = program_notices(load_config(project, Overrides(model="openai/test-model"), persist=False))

    assert any(n.startswith("hive's own install lies in a folder commands can write (") for n in notices), notices
    assert str(prefix) in "\n".join(notices)


def test_with_the_sandbox_off_the_shell_is_not_taken_from_the_project(
    safe: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_repo(safe / "project")
    planted = program(project / ".venv" / "bin", "bash")
    monkeypatch.setenv("PATH", f"{planted.parent}{os.pathsep}{os.environ['PATH']}")

    launch = NoSandbox().prepare("true", project, {})

    assert launch.argv[0] != str(planted) and launch.argv[1:] == ("-c", "true")
