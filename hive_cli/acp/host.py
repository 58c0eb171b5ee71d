"""One editor session: a hive session, the updates its runs send, its approver and its cancel scope."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from acp.schema import PromptResponse, StopReason, UsageUpdate
from acp.schema import Usage as AcpUsage

from engine.events import ExitReason, RunFinished, RunResult
from engine.session import Session
from engine.usage import Usage
from hive_cli.acp.permission import EditorApprover
from hive_cli.acp.updates import EventUpdates, Update

STOP_REASONS: dict[ExitReason, StopReason] = {
    "completed": "end_turn",
    "pending_tool_calls": "end_turn",
    "max_turns": "max_turn_requests",
    "usage_limit": "max_tokens",
    "cancelled": "cancelled",
    "error": "end_turn",  # the error itself was sent as the agent's message
}

Send = Callable[[Update], Awaitable[None]]


class EditorSession:
    """A hive session driven by the editor: one prompt at a time, cancellable from outside."""

    def __init__(self, session: Session, approver: EditorApprover, claimed: str | None = None) -> None:
        self.session = session
        self.approver = approver
        self.updates = EventUpdates(session.config.cwd)
        self.claimed = claimed
        """The id of a saved session claimed for this process (let go when it closes)."""
        self._running: asyncio.Task[RunResult | None] | None = None

    async def prompt(self, text: str, send: Send) -> PromptResponse:
        """Run ``text`` as a turn, sending each event's updates; the stop reason and the turn's usage."""
        if self._running is not None and not self._running.done():
            raise RuntimeError("a prompt is already running in this session")
        self._running = asyncio.create_task(self._run(text, send))
        try:
            result = await self._running
        except asyncio.CancelledError:
            if self._running.cancelled():
                return PromptResponse(stop_reason="cancelled")
            raise
        finally:
            self._running = None
        if result is None:
            return PromptResponse(stop_reason="cancelled")
        return PromptResponse(stop_reason=STOP_REASONS[result.exit_reason], usage=_usage(result.usage))

    async def _run(self, text: str, send: Send) -> RunResult | None:
        result: RunResult | None = None
        async for event in self.session.run_streaming(text):
            if isinstance(event, RunFinished) and event.agent == "root":
                result = event.result
            for update in self.updates.updates(event):
                await send(update)
        if result is not None and (filled := self._context_used(result)) is not None:
            await send(UsageUpdate(session_update="usage_update", used=filled, size=self.session.window().tokens))
        return result

    @staticmethod
    def _context_used(result: RunResult) -> int | None:
        """How much of the window the last model call took (its prompt and its answer), when the provider said."""
        last = result.turns[-1].usage if result.turns else None
        if last is None or last.prompt_tokens is None:
            return None
        return last.prompt_tokens + (last.completion_tokens or 0)

    def cancel(self) -> None:
        """Stop the running turn (if any): its prompt answers ``cancelled``."""
        if self._running is not None and not self._running.done():
            self.session.cancel()


def _usage(usage: Usage) -> AcpUsage | None:
    """The turn's token counts as ACP carries them; None when the provider reported none."""
    if usage.prompt_tokens is None and usage.completion_tokens is None:
        return None
    prompt, completion = usage.prompt_tokens or 0, usage.completion_tokens or 0
    return AcpUsage(
        total_tokens=prompt + completion,
        input_tokens=prompt,
        output_tokens=completion,
        thought_tokens=usage.reasoning_tokens,
        cached_read_tokens=usage.cached_read_tokens,
        cached_write_tokens=usage.cache_write_tokens,
    )
