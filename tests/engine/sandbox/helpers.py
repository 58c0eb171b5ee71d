"""Helpers for the sandbox tests: real folders outside /tmp, git repositories, running commands, finding processes."""

from __future__ import annotations

import asyncio
import subprocess
from dataclasses import dataclass
from pathlib import Path

from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions
from engine.sandbox.probe import bubblewrap_availability
from engine.tools.base import ToolContext, ToolResult
from engine.tools.shell import ExecuteCommandTool
from tests.support.processes import processes_with as processes_with

SECRET = "PRIVATE-KEY-CONTENT-7f3a"
GIT = ("git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "init.defaultBranch=main")


def require_bwrap(network: bool = False) -> None:
    """Fail (never skip) when bwrap cannot start: the sandbox is a promise, not an option."""
    availability = bubblewrap_availability(network=network)
    assert availability.available, f"bubblewrap cannot start on this machine: {availability.reason}"


def make_repo(path: Path) -> Path:
    """A git repository at ``path`` with one commit."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run([*GIT, "init", "-q", str(path)], check=True)
    (path / "README.md").write_text("hello\n")
    subprocess.run([*GIT, "-C", str(path), "add", "README.md"], check=True)
    subprocess.run([*GIT, "-C", str(path), "commit", "-q", "-m", "first"], check=True)
    return path


@dataclass
class Runner:
    """Runs commands through execute_command in a sandbox, in the project unless told otherwise."""

    project: Path
    data_dir: Path
    options: SandboxOptions = SandboxOptions()

    def __post_init__(self) -> None:
        require_bwrap(self.options.network)
        self.sandbox = BubblewrapSandbox(self.options)
        self.tool = ExecuteCommandTool(sandbox=self.sandbox, kill_grace=0.3)

    def __call__(self, command: str, *, cwd: Path | None = None, timeout: float = 20) -> ToolResult:
        ctx = ToolContext(cwd=cwd or self.project, data_dir=self.data_dir)
        return asyncio.run(self.tool.run({"command": command, "timeout_seconds": timeout}, ctx))

    def with_options(self, options: SandboxOptions) -> Runner:
        """A runner for the same project with other options."""
        return Runner(self.project, self.data_dir, options)
