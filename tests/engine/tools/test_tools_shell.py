from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from engine.tools.base import ToolContext, ToolResult
from engine.tools.shell import ExecuteCommandTool

Call = Callable[..., ToolResult]

# Children and a grandchild that would outlive the shell if only the shell were killed.
SPAWNS_A_FAMILY = """
sleep 1000 & echo $! >> {pids}
( sleep 1000 & echo $! >> {pids}; wait ) & echo $! >> {pids}
( trap '' TERM; sleep 1000 ) & echo $! >> {pids}
sleep 1000
"""


def _alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _pids(path: Path, count: int) -> list[int]:
    deadline = time.monotonic() + 30  # a failure guard only
    while time.monotonic() < deadline:
        if path.exists() and len(pids := path.read_text().split()) >= count:
            return [int(pid) for pid in pids]
        time.sleep(0.02)
    raise AssertionError(f"the command did not start {count} processes")


def _all_gone(pids: list[int]) -> bool:
    deadline = time.monotonic() + 30  # a failure guard only
    while time.monotonic() < deadline:
        if not any(_alive(pid) for pid in pids):
            return True
        time.sleep(0.02)
    return False


def test_a_successful_command_reports_exit_code_zero_and_its_output(call: Call) -> None:
    result = call(ExecuteCommandTool(), command="echo out; echo err >&2")
    assert (result.success, result.output) == (True, "Exit code: 0\nout\nerr\n")


def test_a_failing_command_is_unsuccessful_and_reports_its_exit_code(call: Call) -> None:
    result = call(ExecuteCommandTool(), command="echo failing; exit 3")
    assert (result.success, result.output) == (False, "Exit code: 3\nfailing\n")


def test_commands_run_in_the_working_directory_with_empty_stdin(call: Call, workspace: Path) -> None:
    result = call(ExecuteCommandTool(), command="pwd; cat; echo done")
    assert result.output == f"Exit code: 0\n{workspace.resolve()}\ndone\n"


def test_no_output_is_said_plainly(call: Call) -> None:
    assert call(ExecuteCommandTool(), command="true").output == "Exit code: 0\n(no output)"


def test_a_shell_killed_by_a_signal_names_it(call: Call) -> None:
    assert call(ExecuteCommandTool(), command="kill -9 $$").output.startswith("Exit code: -9 (killed by SIGKILL)")


def test_colour_codes_are_removed_from_the_output(call: Call) -> None:
    assert call(ExecuteCommandTool(), command="printf '\\033[31mred\\033[0m\\n'").output == "Exit code: 0\nred\n"


def test_long_output_shows_head_and_tail_and_saves_everything(call: Call, ctx: ToolContext) -> None:
    result = call(ExecuteCommandTool(), command="seq 1 20000")
    full = "".join(f"{n}\n" for n in range(1, 20001))
    assert result.output.startswith("Exit code: 0\n1\n2\n3\n")
    assert " bytes omitted ...\n\n" in result.output
    body, note = result.output.rsplit("\n", 1)
    assert body.endswith("19999\n20000")
    assert len(result.output) < 31_000
    saved = next((ctx.data_dir / "outputs").glob("command-*.log"))
    assert note == (
        f"[Output was {len(full)} bytes; the full output is saved in {saved}; read it with read_file "
        "(offset/limit) or search it with grep_files on that path.]"
    )
    assert saved.read_text() == full


def test_a_timeout_kills_the_whole_process_group(call: Call, tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    tool = ExecuteCommandTool(kill_grace=0.3)
    result = call(tool, command=SPAWNS_A_FAMILY.format(pids=pids_file), timeout_seconds=1)  # its family sleeps 1000 s
    assert result.success is False
    assert result.output.startswith("Command timed out after 1 s and was stopped, with every process it started.")
    assert _all_gone(_pids(pids_file, 4))


def test_cancelling_the_call_kills_the_whole_process_group_and_keeps_its_output(
    ctx: ToolContext, tmp_path: Path
) -> None:
    pids_file = tmp_path / "pids"
    tool = ExecuteCommandTool(kill_grace=0.3)

    async def cancel_midway() -> tuple[list[int], ToolResult]:
        command = "echo before-the-cancel; " + SPAWNS_A_FAMILY.format(pids=pids_file)
        task = asyncio.create_task(tool.run({"command": command}, ctx))
        pids = await asyncio.to_thread(_pids, pids_file, 4)
        task.cancel()
        return pids, await task

    pids, result = asyncio.run(cancel_midway())
    assert _all_gone(pids)
    assert result.success is False
    assert result.output.startswith("Cancelled by the user; the command was stopped.")
    assert "before-the-cancel" in result.output


def test_background_jobs_holding_the_output_do_not_block_the_result(call: Call) -> None:
    result = call(ExecuteCommandTool(drain_grace=0.2), command="sleep 30 & echo $!")
    try:
        assert result.success is True
        assert "background processes still hold its output" in result.output
    finally:
        os.kill(int(result.output.splitlines()[1]), signal.SIGKILL)


def test_progress_reports_the_latest_output_line(ctx: ToolContext, workspace: Path) -> None:
    statuses: list[str] = []
    context = ToolContext(
        cwd=workspace, data_dir=ctx.data_dir, progress=lambda status, progress=None, total=None: statuses.append(status)
    )
    command = "for i in 1 2 3; do echo step$i; sleep 0.3; done"
    asyncio.run(ExecuteCommandTool().run({"command": command}, context))
    assert statuses and all(status.startswith("step") for status in statuses)


def test_a_timeout_above_the_maximum_is_rejected(call: Call) -> None:
    result = call(ExecuteCommandTool(), command="true", timeout_seconds=601)
    assert result.success is False and "timeout_seconds" in result.output


def test_a_missing_working_directory_is_an_error_result(call: Call, ctx: ToolContext, tmp_path: Path) -> None:
    context = ToolContext(cwd=tmp_path / "gone", data_dir=ctx.data_dir)
    result = call(ExecuteCommandTool(), context, command="true")
    assert result.success is False and result.output.startswith("Cannot run the command")


def test_a_cancel_while_the_command_starts_leaves_no_process_unowned(tmp_path: Path) -> None:
    """A cancel landing inside the start would leave the child (and its family) running with nobody to stop it."""
    from engine.tools.shell import _spawn_uncancelled

    async def cancel_during_start() -> tuple[int, bool, int | None]:
        read_fd, write_fd = os.pipe()
        task = asyncio.create_task(_spawn_uncancelled(("sleep", "1000"), dict(os.environ), tmp_path, write_fd, ()))
        await asyncio.sleep(0)  # the task has handed the start to its own task and waits for it
        task.cancel()
        proc, cancelled = await task
        running = proc.returncode
        os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        os.close(read_fd)
        os.close(write_fd)
        return proc.pid, cancelled, running

    pid, cancelled, running = asyncio.run(cancel_during_start())
    assert cancelled and running is None and pid > 0
