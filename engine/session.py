"""A session: an agent with its conversation saved as it goes, and the one object a host talks to.

``open_session`` builds the agent (``engine.agent.build_agent``), opens or reopens the session file,
and starts the toolsets that own processes or connections, then the capabilities' session parts
(``engine.capabilities.Capability``: start and stop, the run of a prompt, every event). Hosts then run
prompts, cancel, switch the model or the mode, read the usage and the context breakdown, and
``await close()`` at the end.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING

from engine.agent import Agent, build_agent, configured_capabilities
from engine.capabilities import Capability
from engine.checkpoints.attach import checkpoints_for
from engine.config import SessionConfig
from engine.context.window import ContextBreakdown, breakdown, percent_used
from engine.conversation import Conversation
from engine.events import ContextCompacted, Event, ToolCall, WorkingMode
from engine.model.types import CallOptions, Message, ModelClient
from engine.paths import scratch_dir, user_data_dir
from engine.policy.gate import Approver, Judgement
from engine.policy.guards import apply_guards
from engine.redaction.scrubber import Scrubber
from engine.sessions import LoadedSession, SessionStore, SessionWriter
from engine.tools.base import ToolResult
from engine.usage import Usage

if TYPE_CHECKING:
    from engine.mcp.manager import McpManager


class Session:
    """An agent plus the session file it writes to."""

    def __init__(self, agent: Agent, writer: SessionWriter | None, config: SessionConfig) -> None:
        self.agent = agent
        self.writer = writer
        self.config = config
        self._started = False
        self._closed = False
        self._start_notices: tuple[str, ...] = ()

    # --- running ------------------------------------------------------------------------

    def run_streaming(self, prompt: str, override: CallOptions | None = None) -> AsyncIterator[Event]:
        """Run ``prompt``: events as they happen, progress merged in, the usage report on ``RunFinished``.

        A capability may run the prompt its own way (hooks pass it through user_prompt and stop first).
        """
        loop = self.agent.loop
        runs = (r for c in self.agent.capabilities if (r := c.run(prompt, override, loop)) is not None)
        run: AsyncGenerator[Event, None] | None = next(runs, None)
        return self._observed(run if run is not None else loop.run_streaming(prompt, override))

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

    # --- what the host may read ----------------------------------------------------------

    @property
    def id(self) -> str | None:
        """The session id, or None when the session is not saved."""
        return self.writer.id if self.writer else None

    @property
    def model(self) -> str:
        """The model requests go to."""
        return self.agent.loop.model.name

    @property
    def client(self) -> ModelClient:
        """The client of that model, for the host's own requests on the session's behalf (a plan)."""
        return self.agent.loop.model.client

    @property
    def mode(self) -> WorkingMode:
        """The working mode (plan or work)."""
        return self.agent.modes.working_mode

    @property
    def usage(self) -> Usage:
        """Everything this session's runs cost so far."""
        return self.agent.loop.account.total

    @property
    def messages(self) -> tuple[Message, ...]:
        """The whole conversation, compacted messages included."""
        return self.agent.loop.conversation.messages

    @property
    def notices(self) -> tuple[str, ...]:
        """What the person must be told once, at the start (e.g. that the sandbox cannot start here)."""
        from engine.instructions import instruction_notices
        from engine.program_notices import program_notices

        trust = self.config.trust
        notices = [
            trust.workspace.root_notice() if trust else None,
            trust.notice() if trust else None,
            self.config.sandbox.notice(),
            *program_notices(self.config),
            *self.config.mcp_servers.notices,
            *self.config.agents.notices,
            *self._start_notices,
            *instruction_notices(self.config.cwd),
        ]
        return tuple(n for n in notices if n)

    @property
    def mcp(self) -> McpManager | None:
        """The MCP servers (status, health, waiting for their tools); None when none is configured."""
        manager_module = sys.modules.get("engine.mcp.manager")
        if manager_module is None:  # the provider imports it when it makes a manager: none was made
            return None
        manager_type: type[McpManager] = manager_module.McpManager
        return next((m for m in self.agent.tools.members if isinstance(m, manager_type)), None)

    @property
    def sandbox(self) -> str:
        """One line saying what confines the shell commands."""
        status = self.config.sandbox
        if status.failed:
            return f"none: the {status.mode} sandbox cannot start here"
        return status.description

    def context_breakdown(self) -> ContextBreakdown:
        """What fills the context window of the next request, by kind of content."""
        loop = self.agent.loop
        view = loop.context.prepare(loop.conversation.view(), ()).messages  # as sent: old results masked
        window = self.agent.windows.of(self.model)
        return breakdown(self.model, loop.instructions, loop.toolset.specs(), view, window)

    def context_percent(self, prompt_tokens: int | None) -> float | None:
        """How full the window was at a request of ``prompt_tokens`` (None when unknown)."""
        return percent_used(self.model, prompt_tokens, self.agent.windows.of(self.model))

    async def wait_for_mcp(self) -> tuple[str, ...]:
        """Wait until every MCP server has listed its tools or failed; one notice per server that failed.

        For hosts that must offer the servers' tools from the first model call (``hive run``); the
        REPL does not wait: tools appear as their servers come up.
        """
        manager = self.mcp
        if manager is None:
            return ()
        await manager.wait_ready()
        return tuple(
            f"MCP server {s.name} ({s.source}) is not available: {s.error}"
            for s in manager.status()
            if s.state == "failed"
        )

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


async def open_session(
    config: SessionConfig,
    *,
    approver: Approver | None,
    title: str = "",
    resume: LoadedSession | None = None,
    history: Sequence[Message] = (),
    client: ModelClient | None = None,
    capabilities: Sequence[Capability] = (),
) -> Session:
    """Build the agent, open (or, for ``resume``, reopen) the session file, and start the toolsets.

    ``resume`` continues a saved session (its messages and compactions, appending to its file);
    ``history`` seeds a new conversation instead. ``capabilities`` are added after the configured
    ones and checkpoints. Nothing here reads settings or permission files: ``load_config`` already did.
    """
    if resume is not None and history:
        raise ValueError("give either a session to resume or a history, not both")
    own = configured_capabilities(config)  # ConfigError here (a webhook's secret unset) leaves no session file
    writer = _open_writer(config, title, resume) if config.persist else None
    if resume is not None:
        conversation = Conversation(resume.messages, resume.compactions)
    else:
        conversation = Conversation(history)
    if writer is not None:
        conversation.record_to(writer)
    try:
        checkpoints = checkpoints_for(config)
        agent = build_agent(
            config,
            approver=approver,
            data_dir=scratch_dir(config.cwd),
            capabilities=[*own, *((checkpoints,) if checkpoints else ()), *capabilities],
            client=client,
            conversation=conversation,
        )
        session = Session(agent, writer, config)
        await session.start()
    except BaseException:
        if writer is not None:
            writer.close()
        raise
    return session


async def _stop(capabilities: Sequence[Capability], session: Session) -> None:
    """Stop ``capabilities`` last first, every one even if one fails."""
    if capabilities:
        try:
            await capabilities[-1].stop(session)
        finally:
            await _stop(capabilities[:-1], session)


def _open_writer(config: SessionConfig, title: str, resume: LoadedSession | None) -> SessionWriter:
    store = SessionStore(user_data_dir() / "sessions")
    scrub = Scrubber.from_environment(known=[("model-api-key", config.model.api_key)])
    if resume is not None:
        return store.reopen(resume.info.id, scrub=scrub)
    return store.create(cwd=config.cwd, model=config.model.model, scrub=scrub, title=title)
