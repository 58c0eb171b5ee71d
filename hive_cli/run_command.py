"""``hive run``: resolve the configuration, open a session, drive one task, report, and pick the exit status."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from engine.events import ExitReason, RunFinished, RunResult
from engine.model.resolve import resolve_model
from engine.policy.config import load_permissions
from engine.policy.gate import ApproveEverything, Approver
from engine.session import Session, SessionConfig, open_session
from engine.settings import LayeredSettings, load_settings
from engine.usage import UsageLimits
from hive_cli.errors import EXIT_INTERRUPTED
from hive_cli.output import Renderer, RunInfo, make_renderer
from hive_cli.workdir import resolve_cwd

DEFAULT_MAX_TURNS = 50
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
    mode: str
    yes: bool
    max_turns: int | None


def run_task(request: RunRequest) -> int:
    """Run the task and return the exit status."""
    cwd = resolve_cwd(request.cwd)
    settings = load_settings(cwd)
    config = session_config(request, cwd, settings)
    session = open_session(config, approver=_approver(request), title=request.task)
    info = RunInfo(session_id=session.id, model=config.model.model, cwd=str(cwd), mode=config.mode)
    renderer = make_renderer(request.output_format, info)
    try:
        result = asyncio.run(_drive(session, request.task, renderer))
    finally:
        session.close()
    return EXIT_CODES[result.exit_reason]


def _approver(request: RunRequest) -> Approver | None:
    """--yes allows every ask; at a terminal (text output) the person is asked; otherwise nobody can answer."""
    if request.yes:
        return ApproveEverything()
    if request.output_format == "text" and sys.stdin.isatty() and sys.stderr.isatty():
        from hive_cli.repl.approver import ReplApprover, StderrSurface

        return ReplApprover(StderrSurface())
    return None


def session_config(request: RunRequest, cwd: Path, settings: LayeredSettings) -> SessionConfig:
    """Combine flags, environment and settings files into a ``SessionConfig``."""
    choice = resolve_model(
        flag_model=request.model, flag_api_base=request.api_base, flag_api_key=request.api_key, settings=settings
    )
    return SessionConfig(
        cwd=cwd,
        model=choice,
        mode=request.mode,
        max_turns=request.max_turns or settings.get("max_turns") or DEFAULT_MAX_TURNS,
        limits=UsageLimits(
            max_total_tokens=settings.limit("max_total_tokens"), max_cost_usd=settings.limit("max_cost_usd")
        ),
        request_timeout_s=settings.get("request_timeout") or 600.0,
        permissions=load_permissions(cwd),
    )


async def _drive(session: Session, task: str, renderer: Renderer) -> RunResult:
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, session.loop.cancel)
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
