"""Stopping sandboxed commands, refusing to run when the sandbox cannot start, and the shell tool's notes."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import pytest

from engine.sandbox.base import NoSandbox, UnavailableSandbox
from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions
from engine.tools.base import ToolContext, ToolResult
from engine.tools.shell import ExecuteCommandTool
from tests.engine.sandbox.helpers import Runner, processes_with


def _family(marker: str) -> str:
    """Background sleeps that would outlive the shell: plain, in a new session, and ignoring SIGTERM."""
    return (
        f"sleep {marker} & setsid sleep {marker} & ( trap '' TERM; sleep {marker} ) & "
        f"nohup sleep {marker} >/dev/null 2>&1 & echo started > started.txt; sleep {marker}"
    )


def _marker() -> str:
    return f"1000.{uuid.uuid4().int % 10**9:09d}"


def _started(marker: str, count: int) -> bool:
    deadline = time.monotonic() + 30  # a failure guard only
    while len(processes_with(marker)) < count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _gone(marker: str) -> bool:
    deadline = time.monotonic() + 30  # a failure guard only
    while time.monotonic() < deadline:
        if not processes_with(marker):
            return True
        time.sleep(0.02)
    return False


def test_a_timeout_ends_every_process_the_command_started(run: Runner, project: Path) -> None:
    marker = _marker()
    result = run(_family(marker), timeout=1)
    assert result.output.startswith("Command timed out after 1 s")
    assert (project / "started.txt").exists()
    assert _gone(marker), processes_with(marker)


def test_a_cancellation_ends_every_process_the_command_started(run: Runner, project: Path) -> None:
    marker = _marker()
    ctx = ToolContext(cwd=project, data_dir=run.data_dir)

    async def cancel_midway() -> ToolResult:
        task = asyncio.create_task(run.tool.run({"command": _family(marker)}, ctx))
        assert await asyncio.to_thread(_started, marker, 5)
        task.cancel()
        return await task

    result = asyncio.run(cancel_midway())
    assert result.output.startswith("Cancelled by the user")
    assert _gone(marker), processes_with(marker)


def test_background_jobs_end_with_the_command(run: Runner) -> None:
    marker = _marker()
    result = run(f"sleep {marker} > /dev/null 2>&1 & echo left")
    assert result.success is True
    assert _gone(marker)


def _call(tool: ExecuteCommandTool, project: Path, command: str) -> ToolResult:
    ctx = ToolContext(cwd=project, data_dir=project.parent / "data")
    return asyncio.run(tool.run({"command": command}, ctx))


def test_a_missing_bwrap_program_means_the_command_is_not_run(project: Path) -> None:
    sandbox = BubblewrapSandbox(SandboxOptions(), binary=Path("/nonexistent/bwrap"))
    result = _call(ExecuteCommandTool(sandbox=sandbox), project, "touch ran.txt")
    assert result.success is False
    assert result.output.startswith("The command was not run: the sandbox cannot start here: /nonexistent/bwrap:")
    assert not (project / "ran.txt").exists()


def test_a_bwrap_that_fails_means_the_command_is_not_run(project: Path) -> None:
    sandbox = BubblewrapSandbox(SandboxOptions(), binary=Path("/bin/false"))
    result = _call(ExecuteCommandTool(sandbox=sandbox), project, "touch ran.txt")
    assert result.output == "The command was not run: the sandbox cannot start here: /bin/false: exit status 1"
    assert not (project / "ran.txt").exists()


def test_an_unavailable_sandbox_refuses_every_command(project: Path) -> None:
    sandbox = UnavailableSandbox("workspace-write", "no sandbox is available on plan9")
    result = _call(ExecuteCommandTool(sandbox=sandbox), project, "touch ran.txt")
    assert result.output == "The command was not run: the sandbox cannot start here: no sandbox is available on plan9"
    assert not (project / "ran.txt").exists()


def test_a_project_inside_a_hidden_folder_is_refused(run: Runner, home: Path) -> None:
    inside = home / ".ssh" / "work"
    inside.mkdir()
    result = run("touch ran.txt", cwd=inside)
    assert result.output.startswith(f"The command was not run: the project {inside} lies inside {home / '.ssh'}")
    assert not (inside / "ran.txt").exists()


def test_an_unreachable_network_gets_a_line_saying_the_network_is_off(run: Runner) -> None:
    result = run("exec 3<>/dev/tcp/192.0.2.1/80")
    assert "Network is unreachable" in result.output
    assert result.output.endswith("[The sandbox may have blocked this: the network is off inside it.]")


def test_a_successful_command_gets_no_sandbox_line(run: Runner) -> None:
    assert run("echo 'Permission denied, but fine'").output == "Exit code: 0\nPermission denied, but fine\n"


def test_mode_off_runs_as_hive_itself_with_its_environment(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-visible-when-off")
    result = _call(
        ExecuteCommandTool(sandbox=NoSandbox()), project, "echo $OPENAI_API_KEY; echo Permission denied; exit 1"
    )
    assert result.output.startswith("Exit code: 1\nsk-visible-when-off\n")
    assert "sandbox" not in result.output
