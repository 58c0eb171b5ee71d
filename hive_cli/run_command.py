"""``hive run``: resolve the configuration, open a session, drive one task, report, and pick the exit status."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from engine.config import Overrides, SessionConfig, load_config
from engine.events import ExitReason, RunFinished, RunResult, WorkingMode
from engine.policy.gate import ApproveEverything, Approver
from engine.sandbox.options import SandboxMode
from engine.session import Session, open_session
from hive_cli.errors import EXIT_INTERRUPTED
from hive_cli.output import Renderer, RunInfo, make_renderer
from hive_cli.workdir import resolve_cwd

EXIT_CODES: dict[ExitReason, int] = {
    "completed": 0,
    "pending_tool_calls": 0,
    "error": 1,
    "max_turns": 3,
    "usage_limit": 3,
    "cancelled": EXIT_INTERRUPTED,
}


@dataclass(frozen=True, kw_only=True)
class RunRequest:
    """The ``hive run`` command line, parsed."""

    task: str
    output_format: str
    model: str | None
    api_base: str | None
    api_key: str | None
    cwd: Path | None
    mode: WorkingMode | None
    yes: bool
    max_turns: int | None
    sandbox: SandboxMode | None = None

    def overrides(self) -> Overrides:
        """What the flags set, for the configuration loader."""
        return Overrides(
            model=self.model,
            api_base=self.api_base,
            api_key=self.api_key,
            mode=self.mode,
            max_turns=self.max_turns,
            sandbox=self.sandbox,
        )


def run_task(request: RunRequest) -> int:
    """Run the task and return the exit status."""
    config = load_config(resolve_cwd(request.cwd), request.overrides())
    result = asyncio.run(_run(config, request))
    return EXIT_CODES[result.exit_reason]


async def _run(config: SessionConfig, request: RunRequest) -> RunResult:
    session = await open_session(config, approver=_approver(request), title=request.task)
    try:
        info = RunInfo(
            session_id=session.id,
            model=session.model,
            cwd=str(config.cwd),
            mode=session.mode,
            sandbox=session.sandbox,
            notices=session.notices,
        )
        return await _drive(session, request.task, make_renderer(request.output_format, info))
    finally:
        await session.close()


def _approver(request: RunRequest) -> Approver | None:
    """--yes allows every ask; at a terminal (text output) the person is asked; otherwise nobody can answer."""
    if request.yes:
        return ApproveEverything()
    if request.output_format == "text" and sys.stdin.isatty() and sys.stderr.isatty():
        from hive_cli.repl.approver import ReplApprover, StderrSurface

        return ReplApprover(StderrSurface())
    return None


async def _drive(session: Session, task: str, renderer: Renderer) -> RunResult:
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, session.cancel)
    started = time.monotonic()
    result: RunResult | None = None
    try:
        async for event in session.run_streaming(task):
            if isinstance(event, RunFinished):
                result = event.result
            renderer.handle(event)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    assert result is not None
    renderer.finish(result, time.monotonic() - started)
    return result
