"""A session: an agent with its conversation saved as it goes, and the one object a host talks to.

``engine.session_open.open_session`` builds the agent (``engine.agent.build_agent``), opens or reopens
the session file, and starts the toolsets that own processes or connections, then the capabilities' session parts
(``engine.capabilities.Capability``: start and stop, the run of a prompt, every event). Hosts then run
prompts, cancel, switch the model or the mode, read the usage and the context breakdown (the read-outs
are :class:`engine.session_readouts.SessionReadouts`), and ``await close()`` at the end.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from engine.agent import Agent
from engine.capabilities import Capability
from engine.config.loader import SessionConfig
from engine.events import ContextCompacted, Event, ToolCall, WorkingMode
from engine.model.types import CallOptions
from engine.model.vision import accepts_images
from engine.policy.gate import Judgement
from engine.policy.guards import apply_guards
from engine.session_readouts import SessionReadouts
from engine.session_store import SessionWriter
from engine.tools.base import ToolResult
from engine.usage import Usage

if TYPE_CHECKING:
    pass


class Session(SessionReadouts):
    """An agent plus the session file it writes to."""

    def __init__(
        self, agent: Agent, writer: SessionWriter | None, config: SessionConfig, notices: tuple[str, ...] = ()
    ) -> None:
        self.agent = agent
        self.writer = writer
        self.config = config
        self._started = False
        self._closed = False
        self._start_notices = notices  # e.g. what was skipped of a damaged session file; capabilities add theirs

    # --- running ------------------------------------------------------------------------

    def run_streaming(self, prompt: str, override: CallOptions | None = None) -> AsyncIterator[Event]:
        """Run ``prompt`` (with the images ``attach`` gave): events as they happen, progress merged in, the usage
        report on ``RunFinished``.

        A capability may run the prompt its own way (hooks pass it through user_prompt and stop first).
        """
        loop = self.agent.loop
        runs = (r for c in self.agent.capabilities if (r := c.run(prompt, override, loop)) is not None)
        run: AsyncGenerator[Event, None] | None = next(runs, None)
        return self._observed(run if run is not None else loop.run_streaming(prompt, override))

    def attach(self, images: Sequence[dict[str, Any]]) -> None:
        """Send ``images`` (OpenAI ``image_url`` parts, ``engine.images``) with the next prompt; check
        ``accepts_images`` first."""
        self.agent.loop.attached = tuple(images)

    def accepts_images(self) -> bool:
        """Whether the model in use takes images (the ``images.vision`` setting, then the model table)."""
        return accepts_images(self.agent.loop.model.name, self.config.images.vision)

    def continue_streaming(self, override: CallOptions | None = None) -> AsyncIterator[Event]:
        """Continue from the history (after the host added results for its own tools)."""
        return self._observed(self.agent.loop.continue_streaming(override))

    async def _observed(self, events: AsyncGenerator[Event, None]) -> AsyncGenerator[Event, None]:
        """``events``, each also shown to every capability (webhooks queue it)."""
        async with aclosing(events) as stream:
            async for event in stream:
                for capability in self.agent.capabilities:
                    capability.observe(event, self)
                yield event

    def cancel(self) -> None:
        """Stop the run in progress; it ends with ``cancelled`` and keeps what its calls produced."""
        if not any(c.cancel() for c in self.agent.capabilities):  # e.g. a user_prompt or stop hook was running
            self.agent.loop.cancel()

    async def add_tool_result(self, call_id: str, output: str) -> str:
        """Give a host-run (declared-only) call its result, after the result guards; returns what was recorded."""
        conversation = self.agent.loop.conversation
        call = conversation.waiting_call(call_id)
        guarded = await apply_guards(self.agent.guards, call, ToolResult(output))
        conversation.add_tool_result(call_id, guarded.output)
        return guarded.output

    def add_exchange(self, prompt: str, answer: str, usage: Usage | None = None) -> None:
        """Add a request the host answered itself (``/research``) to the conversation, so the model sees it next
        turn; ``usage`` (what answering cost) counts in the session's usage."""
        conversation = self.agent.loop.conversation
        conversation.append({"role": "user", "content": prompt})
        conversation.append({"role": "assistant", "content": answer})
        if usage is not None:
            self.agent.loop.account.count(usage)

    def answer_unanswered(self, output: str) -> int:
        """Give every call still waiting for a result ``output`` (a session killed mid-round); how many there were."""
        return self.agent.loop.conversation.answer_unanswered(output)

    def judge_read(self, path: str) -> Judgement:
        """What the rules say about reading ``path`` (for reads done for the person, such as ``@file``)."""
        call = ToolCall(id="host-read", name="read_file", arguments={"path": path})
        spec = next(s for s in self.agent.loop.toolset.specs() if s.name == "read_file")
        ctx = self.agent.loop.environment.context(call, self.agent.id)
        return self.agent.policy.judge(spec, call, ctx)

    # --- what the host may change --------------------------------------------------------

    def switch_model(self, model: str) -> None:
        """Talk to ``model`` (at the same endpoint) from the next request on."""
        self.agent.loop.model.switch(model)

    async def compact(self, focus: str = "") -> ContextCompacted | None:
        """Compact the conversation into the task ledger now (``/compact [focus]``); None if nothing is old enough.

        The summary call's usage counts in the session's usage.
        """
        compacted = await self.agent.compactor.compact(self.agent.loop.conversation, "manual", focus)
        if compacted is not None and compacted.usage is not None:
            self.agent.loop.account.count(compacted.usage)
        return compacted

    def set_mode(self, mode: WorkingMode) -> None:
        """Plan (read-only tools) or work; the next model turn is offered the tools of that mode."""
        self.agent.modes.switch(mode)

    # --- lifecycle -----------------------------------------------------------------------

    async def start(self) -> None:
        """Start the toolsets that own processes or connections (once), then the capabilities, in order."""
        if not self._started:
            self._started = True
            await self.agent.start()
            for capability in self.agent.capabilities:
                self._start_notices += await capability.start(self)

    async def close(self) -> None:
        """Stop the capabilities (in reverse order) and the toolsets, and close the session file (records
        already written stay); every one even if one fails; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        try:
            await _stop(self.agent.capabilities, self)
        finally:
            try:
                await self.agent.stop()
            finally:
                if self.writer is not None:
                    self.writer.close()


async def _stop(capabilities: Sequence[Capability], session: Session) -> None:
    """Stop ``capabilities`` last first, every one even if one fails."""
    if capabilities:
        try:
            await capabilities[-1].stop(session)
        finally:
            await _stop(capabilities[:-1], session)
