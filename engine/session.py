"""A session: an agent with its conversation saved as it goes, and the one object a host talks to.

``open_session`` builds the agent (``engine.agent.build_agent``), opens or reopens the session file,
and starts the toolsets that own processes or connections. Hosts then run prompts, cancel, switch
the model or the mode, read the usage and the context breakdown, and ``await close()`` at the end.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING

from engine.agent import Agent, Extensions, build_agent, model_client
from engine.checkpoints.attach import with_checkpoints
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
    from engine.hooks.runs import HookedRun
    from engine.mcp.manager import McpManager
    from engine.webhooks.sender import WebhookSender


class Session:
    """An agent plus the session file it writes to."""

    def __init__(
        self,
        agent: Agent,
        writer: SessionWriter | None,
        config: SessionConfig,
        webhooks: WebhookSender | None = None,
    ) -> None:
        self.agent = agent
        self.writer = writer
        self.config = config
        self.webhooks = webhooks
        """Sends the session's notifications in the background; None when no endpoint is configured."""
        self._started = False
        self._closed = False
        self._hook_notices: tuple[str, ...] = ()
        self._hooked: HookedRun | None = None

    # --- running ------------------------------------------------------------------------

    def run_streaming(self, prompt: str, override: CallOptions | None = None) -> AsyncIterator[Event]:
        """Run ``prompt``: events as they happen, progress merged in, the usage report on ``RunFinished``.

        With user_prompt or stop hooks, the prompt passes them first and the run may go on where they ask.
        """
        hooks = self.agent.hooks
        if hooks is not None and (hooks.has("user_prompt") or hooks.has("stop")):
            from engine.hooks.runs import HookedRun  # imported here: only a session with hooks needs it

            self._hooked = HookedRun(hooks, self.agent.loop, prompt, override)
            return self._notifying(self._hooked.events())
        return self._notifying(self.agent.loop.run_streaming(prompt, override))

    def continue_streaming(self, override: CallOptions | None = None) -> AsyncIterator[Event]:
        """Continue from the history (after the host added results for its own tools)."""
        return self._notifying(self.agent.loop.continue_streaming(override))

    async def _notifying(self, events: AsyncGenerator[Event, None]) -> AsyncGenerator[Event, None]:
        """``events``, each also handed to the webhooks (which only queue it)."""
        async with aclosing(events) as stream:
            async for event in stream:
                if self.webhooks is not None:
                    self.webhooks.send_event(event, self.id)
                yield event

    def cancel(self) -> None:
        """Stop the run in progress; it ends with ``cancelled`` and keeps what its calls produced."""
        if self._hooked is not None and self._hooked.cancel():
            return  # a user_prompt or stop hook was running, and is stopped
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
            self.agent.loop.usage = self.agent.loop.usage + usage

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
        self.agent.loop.client = model_client(self.config, model)
        self.agent.tracker.model = model

    async def compact(self, focus: str = "") -> ContextCompacted | None:
        """Compact the conversation into the task ledger now (``/compact [focus]``); None if nothing is old enough.

        The summary call's usage counts in the session's usage.
        """
        if self.agent.compactor is None:
            return None
        compacted = await self.agent.compactor.compact(self.agent.loop.conversation, "manual", focus)
        if compacted is not None and compacted.usage is not None:
            self.agent.loop.usage = self.agent.loop.usage + compacted.usage
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
        return self.agent.loop.client.model

    @property
    def mode(self) -> WorkingMode:
        """The working mode (plan or work)."""
        return self.agent.modes.working_mode

    @property
    def usage(self) -> Usage:
        """Everything this session's runs cost so far."""
        return self.agent.loop.usage

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
            *self._hook_notices,
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
        """Start the toolsets that own processes or connections (once), then run the session_start hooks."""
        if not self._started:
            self._started = True
            await self.agent.start()
            if self.webhooks is not None:
                self.webhooks.start()
                data = {"model": self.model, "cwd": str(self.config.cwd), "mode": self.mode}
                self.webhooks.notify("session_started", self.id, data)
            if self.agent.hooks is not None:
                from engine.hooks.runs import session_hooks  # imported here: only a session with hooks needs it

                self._hook_notices = await session_hooks(self.agent.hooks, "session_start")

    async def close(self) -> None:
        """Stop the toolsets and close the session file (records already written stay); safe to call twice."""
        if self._closed:
            return
        self._closed = True
        try:
            if self.agent.hooks is not None:
                from engine.hooks.runs import session_hooks

                await session_hooks(self.agent.hooks, "session_end")  # nobody is left to tell of a failure
            await self.agent.stop()
        finally:
            if self.writer is not None:
                self.writer.close()
            await self._close_webhooks()

    async def _close_webhooks(self) -> None:
        """Send ``session_finished`` and give the deliveries still queued a short bound."""
        if self.webhooks is None:
            return
        self.webhooks.notify("session_finished", self.id, {"usage": self.usage.to_dict()})
        await self.webhooks.close()


async def open_session(
    config: SessionConfig,
    *,
    approver: Approver | None,
    title: str = "",
    resume: LoadedSession | None = None,
    history: Sequence[Message] = (),
    client: ModelClient | None = None,
    extensions: Extensions | None = None,
) -> Session:
    """Build the agent, open (or, for ``resume``, reopen) the session file, and start the toolsets.

    ``resume`` continues a saved session (its messages and compactions, appending to its file);
    ``history`` seeds a new conversation instead. Nothing here reads settings or permission files:
    ``load_config`` already did.
    """
    if resume is not None and history:
        raise ValueError("give either a session to resume or a history, not both")
    webhooks = _webhook_sender(config)
    writer = _open_writer(config, title, resume) if config.persist else None
    if resume is not None:
        conversation = Conversation(resume.messages, resume.compactions)
    else:
        conversation = Conversation(history)
    if writer is not None:
        conversation.record_to(writer)
    try:
        extensions = with_checkpoints(config, extensions)
        agent = build_agent(
            config,
            approver=approver,
            data_dir=scratch_dir(config.cwd),
            extensions=extensions,
            client=client,
            conversation=conversation,
        )
        if agent.hooks is not None:
            agent.hooks.session_id = writer.id if writer is not None else None
        session = Session(agent, writer, config, webhooks)
        await session.start()
    except BaseException:
        if writer is not None:
            writer.close()
        raise
    return session


def _webhook_sender(config: SessionConfig) -> WebhookSender | None:
    """The sender for the configured endpoints; ``ConfigError`` for a secret variable that is unset or empty."""
    if not config.webhooks.endpoints:
        return None
    from engine.webhooks.sender import WebhookSender  # httpx only for sessions that send webhooks

    return WebhookSender.from_options(config.webhooks)


def _open_writer(config: SessionConfig, title: str, resume: LoadedSession | None) -> SessionWriter:
    store = SessionStore(user_data_dir() / "sessions")
    scrub = Scrubber.from_environment(known=[("model-api-key", config.model.api_key)])
    if resume is not None:
        return store.reopen(resume.info.id, scrub=scrub)
    return store.create(cwd=config.cwd, model=config.model.model, scrub=scrub, title=title)
