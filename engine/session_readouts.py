"""What a host reads of a session: its id, model, mode, usage, notices, MCP servers, sandbox and context.

:class:`SessionReadouts` is the read-only half of :class:`engine.session.Session`, kept apart so the
session itself holds only what a host does (run, cancel, switch, start, close).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from engine.agent import Agent
from engine.config.loader import SessionConfig
from engine.context.window import ContextBreakdown, Window, breakdown, percent_used
from engine.events import WorkingMode
from engine.model.types import Message, ModelClient
from engine.session_store import SessionWriter
from engine.usage import Usage

if TYPE_CHECKING:
    from engine.mcp.manager import McpManager

_unavailable = {"failed": "not available", "awaiting_approval": "waiting for your approval"}
"""The servers ``hive run`` names before its first model call, and how it says why each offers no tools."""


class SessionReadouts:
    """The read-outs of a session (its agent, session file and configuration)."""

    agent: Agent
    writer: SessionWriter | None
    config: SessionConfig
    _start_notices: tuple[str, ...]

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
    def usage_by_spender(self) -> tuple[tuple[str, Usage], ...]:
        """The part of ``usage`` spent on others' behalf, by who spent it (a server's sampling requests)."""
        return tuple(self.agent.loop.account.spenders.items())

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

    def window(self) -> Window:
        """The current model's context window, and where hive learned it."""
        return self.agent.windows.of(self.model)

    def context_percent(self, prompt_tokens: int | None) -> float | None:
        """How full the window was at a request of ``prompt_tokens`` (None when unknown)."""
        return percent_used(self.model, prompt_tokens, self.agent.windows.of(self.model))

    async def wait_for_mcp(self) -> tuple[str, ...]:
        """Wait until every MCP server never seen before has listed its tools or failed; one notice per server that
        failed or awaits approval.

        For hosts that must offer the servers' tools from the first model call (``hive run``); the
        REPL does not wait: tools appear as their servers come up. A server seen before is not waited
        for: its cached tools are offered while it connects (:mod:`engine.mcp.tool_cache`).
        """
        manager = self.mcp
        if manager is None:
            return ()
        await manager.wait_ready()
        return tuple(
            f"MCP server {s.name} ({s.source}) is {_unavailable[s.state]}: {s.error}"
            for s in manager.status()
            if s.state in _unavailable
        )
