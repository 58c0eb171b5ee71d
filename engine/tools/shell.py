"""The execute_command tool: a shell command in its own process group, bounded in time and output."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from msgspec import Meta

from engine.git_environment import with_neutral_git
from engine.own_variables import inherited_environment
from engine.tools.args import ToolArgs
from engine.tools.base import ArgsTool, ToolContext, ToolResult
from engine.tools.output import CommandOutput, describe_exit, end_line
from engine.tools.paths import working_directory

if TYPE_CHECKING:
    from engine.sandbox.base import Sandbox

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
KILL_GRACE = 1.5
"""Seconds between SIGTERM and SIGKILL when a command is stopped."""
DRAIN_GRACE = 1.0
"""Seconds to wait for the output pipe to close after the shell exits (background jobs may keep it open)."""
PROGRESS_INTERVAL = 0.5
_CHUNK = 65536
_POLL = 0.02
_ENV_OVERRIDES = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}


class ExecuteCommandArgs(ToolArgs, frozen=True):
    command: Annotated[
        str,
        Meta(
            min_length=1,
            description="The shell command line to run with bash, e.g. 'pytest -q tests/test_x.py' or "
            "'git status && git diff'.",
        ),
    ]
    timeout_seconds: Annotated[
        float,
        Meta(
            gt=0,
            le=MAX_TIMEOUT,
            description=f"Stop the command after this many seconds (default {DEFAULT_TIMEOUT:.0f}, at most "
            f"{MAX_TIMEOUT:.0f}).",
        ),
    ] = DEFAULT_TIMEOUT


class ExecuteCommandTool(ArgsTool[ExecuteCommandArgs]):
    """execute_command: run a command with bash and report its exit code and output."""

    name = "execute_command"
    description = (
        "Run a shell command with bash in the working directory; returns the exit code and the combined "
        "stdout and stderr. Use it to build, run tests, use git and other programs; to read, search or change "
        "files prefer read_file, grep_files, glob_files and edit_file. Each call starts a fresh shell, so `cd` "
        "and variables do not carry over: chain commands with && (e.g. `cd web && npm test`). Stdin is empty, "
        "so interactive prompts fail: pass flags such as --yes. The command and everything it started are "
        f"stopped after timeout_seconds (default {DEFAULT_TIMEOUT:.0f}). Long output is cut to its beginning "
        "and end, and the full output is saved to a file whose path is given. To leave a server running in "
        "the background, redirect its output: `cmd > server.log 2>&1 &`."
    )
    sandboxed_note = (
        " Commands run in a sandbox ({sandbox}): writes it does not allow fail (workspace-write: only the project "
        "and /tmp are writable), the home folder is empty but for toolchains and package caches (read-only: "
        "builds work offline from what is already fetched), secret files and variables are hidden, and every "
        "process a command starts ends with it, so start a server and use it within the same command."
    )
    args_model = ExecuteCommandArgs
    read_only = False

    def __init__(
        self, *, kill_grace: float = KILL_GRACE, drain_grace: float = DRAIN_GRACE, sandbox: Sandbox | None = None
    ) -> None:
        """``kill_grace``: seconds from SIGTERM to SIGKILL; ``drain_grace``: see :data:`DRAIN_GRACE`.

        ``sandbox`` confines every command (see :mod:`engine.sandbox`); None runs them as hive itself.
        A command the sandbox cannot be set up for is not run: its result says why.
        """
        self.kill_grace = kill_grace
        self.drain_grace = drain_grace
        self.sandbox = sandbox

    def describe(self) -> str:
        """The description, saying what the sandbox allows when there is one."""
        if self.sandbox is None or self.sandbox.mode == "off":
            return self.description
        text = self.description.replace(
            " To leave a server running in the background, redirect its output: `cmd > server.log 2>&1 &`.", ""
        )
        return text + self.sandboxed_note.format(sandbox=self.sandbox.describe())

    async def execute(self, args: ExecuteCommandArgs, ctx: ToolContext) -> ToolResult:
        cwd = working_directory(ctx)
        env = with_neutral_git({**inherited_environment(), **_ENV_OVERRIDES})
        if self.sandbox is None or ctx.outside_sandbox:
            return await self._run(_unconfined_argv(args.command, cwd, self.sandbox), env, cwd, args, ctx)
        from engine.sandbox.base import SandboxError

        try:
            launch = await asyncio.to_thread(self.sandbox.prepare, args.command, cwd, env)
        except SandboxError as exc:
            return ToolResult.error(f"The command was not run: {exc}")
        try:
            result = await self._run(launch.argv, launch.env, cwd, args, ctx, launch.pass_fds)
        finally:
            notes = launch.after()
        return _with_notes(result, notes, self.sandbox)

    async def _run(
        self,
        argv: tuple[str, ...],
        env: Mapping[str, str],
        cwd: Path,
        args: ExecuteCommandArgs,
        ctx: ToolContext,
        pass_fds: tuple[int, ...] = (),
    ) -> ToolResult:
        read_fd, write_fd = os.pipe()
        transport, reader = await _open_reader(read_fd)
        try:
            try:
                proc, cancelled = await _spawn_uncancelled(argv, env, cwd, write_fd, pass_fds)
            finally:
                os.close(write_fd)  # the child has its copy; EOF comes when every process closes it
        except OSError as exc:
            transport.close()
            return ToolResult.error(f"Cannot run the command in {cwd}: {exc.strerror or exc}")
        output = CommandOutput(
            ctx.data_dir / "outputs", shown_from=cwd, file_cap=ctx.file_options.saved_output_max_bytes
        )
        try:
            return await self._supervise(proc, transport, reader, output, args, ctx, cancelled=cancelled)
        finally:
            await output.close()

    async def _supervise(
        self,
        proc: asyncio.subprocess.Process,
        transport: asyncio.ReadTransport,
        reader: asyncio.StreamReader,
        output: CommandOutput,
        args: ExecuteCommandArgs,
        ctx: ToolContext,
        *,
        cancelled: bool = False,
    ) -> ToolResult:
        pump = asyncio.create_task(_pump(reader, output, ctx))
        try:
            try:
                if cancelled:  # the cancel came while the command was starting: it stops at once
                    raise asyncio.CancelledError
                await asyncio.wait_for(proc.wait(), args.timeout_seconds)
            except TimeoutError:
                await stop_process_group(proc, self.kill_grace)
                await _drain(pump, self.drain_grace)
                return ToolResult.error(self._timeout_text(args.timeout_seconds, output))
            detached = not await _drain(pump, self.drain_grace)
        except asyncio.CancelledError:
            # The run is being cancelled: stop the command, and hand back what it printed so far (the
            # round is finishing anyway, so returning instead of re-raising loses nothing).
            await stop_process_group(proc, self.kill_grace)
            await _drain(pump, self.drain_grace)
            return ToolResult.error(f"Cancelled by the user; the command was stopped.\n{output.render()}")
        finally:
            await _stop_pump(pump)
            transport.close()
        assert proc.returncode is not None
        text = f"{describe_exit(proc.returncode)}\n{output.render()}"
        if detached:
            text = end_line(text) + (
                "[The shell exited but background processes still hold its output; their later output is not "
                "captured. Redirect it to a file (`cmd > out.log 2>&1 &`) to keep them independent.]"
            )
        return ToolResult(text, proc.returncode == 0)

    @staticmethod
    def _timeout_text(timeout: float, output: CommandOutput) -> str:
        return (
            f"Command timed out after {timeout:g} s and was stopped, with every process it started.\n"
            f"Output before it was stopped:\n{output.render()}"
        )


async def stop_process_group(proc: asyncio.subprocess.Process, grace: float) -> None:
    """Stop the process group led by ``proc``: SIGTERM, up to ``grace`` seconds, then SIGKILL; reap ``proc``."""
    try:
        _signal_group(proc.pid, signal.SIGTERM)
        # No event tells when a whole group is gone, so poll it.
        for _ in range(max(1, round(grace / _POLL))):
            if not _group_alive(proc.pid):
                break
            await asyncio.sleep(_POLL)
    finally:
        # Always, even if this coroutine is cancelled: nothing of the group may survive.
        _signal_group(proc.pid, signal.SIGKILL)
    await proc.wait()


def _with_notes(result: ToolResult, notes: tuple[str, ...], sandbox: Sandbox) -> ToolResult:
    """The result with the sandbox's notes, and a hint when a failure looks like the sandbox's doing."""
    lines = list(notes)
    if result.success is False and sandbox.mode != "off":
        from engine.sandbox.denial import denial_note, sandbox_denials

        hint = denial_note(sandbox_denials(result.output), sandbox.mode)
        if hint:
            lines.append(hint)
    if not lines:
        return result
    return ToolResult(end_line(result.output) + "\n".join(lines), result.success)


def _unconfined_argv(command: str, cwd: Path, sandbox: Sandbox | None) -> tuple[str, ...]:
    """bash outside the sandbox: never one from a folder the sandbox lets commands write."""
    from engine.sandbox.base import commands_can_write, shell_argv
    from engine.sandbox.options import SandboxOptions

    options = getattr(sandbox, "options", None)
    return shell_argv(command, commands_can_write(options if isinstance(options, SandboxOptions) else None, cwd))


async def _spawn_uncancelled(
    argv: tuple[str, ...], env: Mapping[str, str], cwd: Path, write_fd: int, pass_fds: tuple[int, ...]
) -> tuple[asyncio.subprocess.Process, bool]:
    """The started command, and whether a cancel arrived while it started.

    A cancel that lands inside ``create_subprocess_exec`` would leave a child running that nobody
    stops (its family outlives it): the start is shielded, and the caller stops the group instead.
    """
    spawning = asyncio.ensure_future(_spawn(argv, env, cwd, write_fd, pass_fds))
    try:
        return await asyncio.shield(spawning), False
    except asyncio.CancelledError:
        return await spawning, True


async def _spawn(
    argv: tuple[str, ...], env: Mapping[str, str], cwd: Path, output_fd: int, pass_fds: tuple[int, ...]
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=output_fd,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,  # a new session: no terminal, and one process group to stop
        env=dict(env),
        pass_fds=pass_fds,
    )


async def _open_reader(read_fd: int) -> tuple[asyncio.ReadTransport, asyncio.StreamReader]:
    # Our own pipe, not asyncio's: closing its read end is how we stop listening to background jobs.
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_CHUNK)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    return transport, reader


async def _pump(reader: asyncio.StreamReader, output: CommandOutput, ctx: ToolContext) -> None:
    last_report = 0.0
    while chunk := await reader.read(_CHUNK):
        await output.add(chunk)
        now = time.monotonic()
        if now - last_report >= PROGRESS_INTERVAL:
            last_line = output.last_line()
            if last_line:
                ctx.progress(last_line)
            last_report = now


async def _drain(pump: asyncio.Task[None], grace: float) -> bool:
    """Wait up to ``grace`` seconds for the output to end; True when it did."""
    done, _ = await asyncio.wait({pump}, timeout=grace)
    return bool(done)


async def _stop_pump(pump: asyncio.Task[None]) -> None:
    pump.cancel()
    # asyncio.wait, unlike awaiting the task, lets a cancellation of *this* task through.
    await asyncio.wait({pump})
    if not pump.cancelled():
        pump.exception()  # retrieved, so asyncio does not log it; the output so far is still used


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
