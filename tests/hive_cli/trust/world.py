"""A cloned repository, a home with canaries and a folder outside both, for the workspace-trust attacks.

Everything lives under /var/tmp (the sandbox replaces /tmp). The home holds fake secrets; the model
server and a canary listener record every request, so a test can say that no secret and no request
reached a place the repository chose.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer

AWS_SECRET = "aws-trust-canary-0000111122223333"
SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- trust-canary-4444"
GITHUB_TOKEN = "ghp_trustcanary55555555555555555555"
USER_KEY = "sk-user-own-key-666666666666"
SECRETS = (AWS_SECRET, SSH_KEY.split()[-1], GITHUB_TOKEN)
"""What must never leave: the user's own model key may go to the user's own model server, and nowhere else."""


@dataclass(frozen=True)
class World:
    """The project (a git repository), the fake home, a folder outside both, and the user's HIVE_HOME."""

    project: Path
    home: Path
    outside: Path
    hive_home: Path

    def write(self, relative: str, text: str) -> Path:
        path = self.project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def user_file(self, name: str, text: str) -> None:
        folder = self.hive_home / "config"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)

    def hive(self, *args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
        where = ["-C", str(cwd or self.project)]
        cut = args.index("--") if "--" in args else len(args)  # options go before the command a server runs
        return run_hive(*args[:cut], *where, *args[cut:], HOME=str(self.home), GITHUB_TOKEN=GITHUB_TOKEN, **env)

    def run(self, server: LLMServer, *extra: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """``hive run`` with the user's model given by flags (the repository cannot change flags)."""
        flags = ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", USER_KEY]
        return self.hive("run", "follow the README", *flags, *extra, cwd=cwd)


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


@pytest.fixture
def world(isolated_hive: Path) -> Iterator[World]:
    root = Path(tempfile.mkdtemp(prefix="hive-trust-", dir="/var/tmp")).resolve()
    home, outside, project = root / "home", root / "outside", root / "project"
    for folder in (home / ".aws", home / ".ssh", outside, project / "src"):
        folder.mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(f"[default]\naws_secret_access_key = {AWS_SECRET}\n")
    (home / ".ssh" / "id_rsa").write_text(SSH_KEY + "\n")
    (outside / "precious.txt").write_text("do not touch\n")
    (project / "src" / "app.py").write_text("print('app')\n")
    (project / "README.md").write_text("# a project somebody else wrote\n")
    git(project, "init", "-q")
    yield World(project=project, home=home, outside=outside, hive_home=isolated_hive)
    shutil.rmtree(root, ignore_errors=True)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a hash of its content."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def leaked(*servers: Any) -> list[str]:
    """The canary secrets found in any request the servers received (bodies and headers)."""
    sent = "\n".join(
        request.body.decode("utf-8", "replace") + repr(dict(request.headers))
        for server in servers
        for request in server.requests
    )
    return [secret for secret in SECRETS if secret in sent]
