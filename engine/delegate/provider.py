"""The agents as tools: ``agent_{name}`` for each definition, while the nesting depth allows.

``AgentsProvider`` is one of the session's tool providers. It holds the providers a delegated run
takes its tools from and the bounds shared by every run of the session (the concurrency slots); the
child it builds gets an ``AgentsProvider`` one level deeper, so the depth bound holds across agents.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from engine.delegate.definitions import AgentDefinition
from engine.delegate.run import run_delegated
from engine.events import ToolCall
from engine.policy.patterns import name_matches
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.compose import CombinedToolset
from engine.tools.hints import unknown_tool
from engine.tools.registry import ToolRegistry, WrapperToolset

if TYPE_CHECKING:
    from engine.capabilities import BuildContext, ToolProvider

TOOL_PREFIX = "agent_"
TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task": {
            "type": "string",
            "description": "The whole task for the agent: it sees nothing of this conversation but this text.",
        }
    },
    "required": ["task"],
}


class Slots:
    """At most ``limit`` delegated runs working at once across the session (one semaphore per event loop).

    A run that delegates lends its slot to its sub-agent while it waits, and takes one back after, so
    nested delegation never waits for a slot its own caller holds.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._semaphore: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None

    def semaphore(self) -> asyncio.Semaphore:
        """The semaphore of the running event loop."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._semaphore[0] is not loop:
            self._semaphore = (loop, asyncio.Semaphore(self.limit))
        return self._semaphore[1]

    @asynccontextmanager
    async def taken(self) -> AsyncIterator[None]:
        """Hold a slot for the duration of the block (the caller's slot lent meanwhile, if it holds one)."""
        semaphore = self.semaphore()
        caller = _holding.get()
        lender = caller if caller is not None and caller.semaphore is semaphore else None
        if lender is not None:
            lender.lend()
        try:
            async with _Hold(semaphore).held():
                yield
        finally:
            if lender is not None:
                await lender.take_back()


class _Hold:
    """One run's slot, which its sub-agents may borrow."""

    def __init__(self, semaphore: asyncio.Semaphore) -> None:
        self.semaphore = semaphore
        self.holding = False
        self.lent = 0

    @asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        await self.semaphore.acquire()
        self.holding = True
        token = _holding.set(self)
        try:
            yield
        finally:
            _holding.reset(token)
            if self.holding:
                self.semaphore.release()

    def lend(self) -> None:
        self.lent += 1
        if self.holding:
            self.holding = False
            self.semaphore.release()

    async def take_back(self) -> None:
        self.lent -= 1
        if self.lent == 0 and not self.holding:
            await self.semaphore.acquire()
            self.holding = True


_holding: ContextVar[_Hold | None] = ContextVar("hive_delegation_slot", default=None)
"""The slot of the delegated run the running code belongs to (None outside delegated runs)."""


class AgentsProvider:
    """Offers ``agent_{name}`` for every agent of the session while ``depth`` is below ``delegation.max_depth``."""

    def __init__(self, tools: Sequence[ToolProvider], depth: int = 0, slots: Slots | None = None) -> None:
        self.tools = tuple(tools)
        """The providers a delegated run takes its tools from (its definition's ``tools`` pick among them)."""
        self.depth = depth
        self.slots = slots

    def toolset(self, context: BuildContext) -> Toolset | None:
        options = context.config.delegation
        agents = context.config.agents.agents
        if self.depth >= options.max_depth or not agents:
            return None
        if self.slots is None:
            self.slots = Slots(options.max_concurrency)
        return ToolRegistry(AgentTool(definition, self, context) for definition in agents.values())

    def deeper(self) -> AgentsProvider:
        """The provider of a child's own agents: one level deeper, the same slots."""
        return AgentsProvider(self.tools, self.depth + 1, self.slots)

    def child_tools(self, definition: AgentDefinition) -> ToolProvider:
        """What a run of ``definition`` is offered: its tools among the providers, and its own agents."""
        return OnlyTools((*self.tools, self.deeper()), definition.tools)


class AgentTool:
    """One agent as a tool: a call is an isolated run of the agent on the call's ``task``."""

    def __init__(self, definition: AgentDefinition, provider: AgentsProvider, parent: BuildContext) -> None:
        self.definition = definition
        self.provider = provider
        self.parent = parent
        # Calls may run side by side (within the slots); every call the child makes is judged on its
        # own, and plan mode's filter holds inside the child, which shares the parent's modes.
        self.spec = ToolSpec(
            name=TOOL_PREFIX + definition.name,
            description=definition.description,
            parameters=TASK_SCHEMA,
            read_only=True,
            kind="agent",
            source=definition.name,
        )

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        task = arguments.get("task")
        if not isinstance(task, str) or not task.strip():
            return ToolResult.error(f"{self.spec.name} needs a 'task': the whole task for the agent, as text")
        assert self.provider.slots is not None
        async with self.provider.slots.taken():
            return await run_delegated(
                self.definition, task, self.provider.child_tools(self.definition), self.parent, ctx
            )


class SharedProvider:
    """Gives every agent built with it the toolset its provider made for the first (e.g. the MCP servers).

    The first agent (the session's) starts and stops it; the agents it delegates to reuse it.
    """

    def __init__(self, inner: ToolProvider) -> None:
        self.inner = inner
        self._made = False
        self._toolset: Toolset | None = None

    def toolset(self, context: BuildContext) -> Toolset | None:
        if not self._made:
            self._made = True
            self._toolset = self.inner.toolset(context)
        return self._toolset


class OnlyTools:
    """The tools of ``providers`` named (or matched, ``mcp__github__*``) in ``names``; all of them for None."""

    def __init__(self, providers: Sequence[ToolProvider], names: Sequence[str] | None) -> None:
        self.providers = tuple(providers)
        self.names = frozenset(names) if names is not None else None

    def toolset(self, context: BuildContext) -> Toolset | None:
        members = [t for p in self.providers if (t := p.toolset(context)) is not None]
        combined = CombinedToolset(members)
        return combined if self.names is None else NamedTools(combined, self.names)


class NamedTools(WrapperToolset):
    """Only the tools of ``inner`` named or matched in ``names``; calls to the others are refused."""

    def __init__(self, inner: Toolset, names: frozenset[str]) -> None:
        super().__init__(inner)
        self.names = names

    def allowed(self, name: str) -> bool:
        """Whether ``name`` is one of the tools, or matches one of their globs."""
        return name in self.names or any(name_matches(pattern, name) for pattern in self.names)

    def specs(self) -> Sequence[ToolSpec]:
        return [spec for spec in self.inner.specs() if self.allowed(spec.name)]

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        if not self.allowed(call.name):
            return unknown_tool(call.name, (spec.name for spec in self.specs()), ctx)
        return await self.inner.call(call, ctx)
