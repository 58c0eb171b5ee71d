"""``hive run --input-format stream-json``: one conversation in one process, a run per user message, until EOF.

Each message's run streams its events as stream-json and ends with a ``run_finished`` line (its result, usage and,
with ``--output-schema``, ``structured``); at the end of input ``session_finished`` closes the stream. The exit
status is the last run's.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Mapping
from typing import Any

from engine.events import ErrorEvent, ExitReason, RunResult
from engine.session import Session
from hive_cli.headless.inbox import Inbox
from hive_cli.headless.input_lines import InputProblem
from hive_cli.headless.output_schema import OutputSchema
from hive_cli.headless.structured_run import run_events, run_structured
from hive_cli.interrupts import Ending, cancel_on_ctrl_c
from hive_cli.output.stream_json import StreamJsonRenderer

INPUT_FIX = (
    'send one JSON object per line: {"type": "user_message", "text": ...} or '
    '{"type": "approval", "request_id": ..., "decision": "allow"|"deny"}'
)
NO_RESULT = RunResult(text="", exit_reason="completed")
"""What ``session_finished`` reports when stdin ended before any message."""


async def converse(
    session: Session,
    first: str | None,
    renderer: StreamJsonRenderer,
    inbox: Inbox,
    ending: Ending,
    exit_codes: Mapping[ExitReason, int],
    schema: OutputSchema | None = None,
) -> int:
    """Run ``first`` (when given), then every message from stdin in turn; the last run's exit status."""
    inbox.report = lambda problem: renderer.handle(_problem_event(problem))
    inbox.start(sys.stdin.buffer)
    loop = asyncio.get_running_loop()
    began = time.monotonic()
    last, status, runs = NO_RESULT, 0, 0

    def stop() -> None:
        inbox.stop()
        session.cancel()

    with cancel_on_ctrl_c(loop, stop), ending.caught(loop, stop):
        prompt = first
        while prompt is not None or (prompt := await _next_prompt(inbox)) is not None:
            started = time.monotonic()
            last, extra, own_status = await _one_run(session, prompt, schema, renderer)
            renderer.finish_run(last, time.monotonic() - started, extra)
            status = own_status if own_status is not None else exit_codes[last.exit_reason]
            runs, prompt = runs + 1, None
            if last.exit_reason == "cancelled":
                break
    renderer.finish(last, time.monotonic() - began, {"runs": runs})
    return status


async def _next_prompt(inbox: Inbox) -> str | None:
    message = await inbox.next_message()
    return None if message is None else message.text


async def _one_run(
    session: Session, prompt: str, schema: OutputSchema | None, renderer: StreamJsonRenderer
) -> tuple[RunResult, dict[str, Any], int | None]:
    if schema is None:
        return await run_events(session, prompt, renderer), {}, None
    outcome = await run_structured(session, prompt, schema, renderer)
    return outcome.result, outcome.extra, outcome.status


def _problem_event(problem: InputProblem) -> ErrorEvent:
    return ErrorEvent(category="bad_request", message=f"stdin line {problem.line}: {problem.message}", fix=INPUT_FIX)
