"""Modes: plan (read-only tools only), work (every tool, each judged) and hitl (paused for a person).

A :class:`ModeManager` holds the mode and announces every change as a ``ModeChanged`` event; the
:class:`ModeFilter` toolset wrapper offers and permits only read-only tools while the mode is plan.
While a person is deciding (hitl), no tool call starts: :meth:`ModeManager.wait_until_running`
holds them back.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

from engine.events import ROOT_AGENT, Event, Mode, ModeChanged, ToolCall, WorkingMode
from engine.policy.defaults import READ_ONLY_BUILTINS
from engine.policy.patterns import name_matches
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.registry import WrapperToolset

__all__ = ["Mode", "ModeFilter", "ModeManager", "WorkingMode", "is_read_only"]

Emit = Callable[[Event], None]


class ModeManager:
    """The agent's mode; every transition is announced to ``emit`` (when given) and to the listeners."""

    def __init__(self, mode: WorkingMode = "work") -> None:
        self._working: WorkingMode = mode
        self._pauses = 0
        self._listeners: list[Emit] = []
        self._resumed: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    @property
    def current(self) -> Mode:
        """``hitl`` while a person is deciding, else the working mode."""
        return "hitl" if self._pauses else self._working

    @property
    def working_mode(self) -> WorkingMode:
        """Plan or work: the mode the agent returns to after a decision."""
        return self._working

    def listen(self, listener: Emit) -> None:
        """Call ``listener`` with every ``ModeChanged`` from now on."""
        self._listeners.append(listener)

    def switch(self, mode: WorkingMode, reason: str = "", emit: Emit | None = None) -> ModeChanged | None:
        """Change the working mode; returns the event, or None when the mode was already ``mode``."""
        if mode == self._working:
            return None
        previous = self.current
        self._working = mode
        return self._announce(previous, reason, emit, ROOT_AGENT)

    @asynccontextmanager
    async def human_decision(
        self, reason: str, emit: Emit | None = None, agent: str = ROOT_AGENT
    ) -> AsyncIterator[None]:
        """Be in hitl for the duration of the block (a person is deciding), then return to the working mode."""
        previous = self.current
        self._pauses += 1
        if previous != "hitl":
            self._announce(previous, reason, emit, agent)
        try:
            yield
        finally:
            self._pauses -= 1
            if not self._pauses:
                self._announce("hitl", "decision taken", emit, agent)
                self._event().set()

    async def wait_until_running(self) -> None:
        """Return once no person is being asked (at once when nobody is)."""
        while self._pauses:
            event = self._event()
            event.clear()
            await event.wait()

    def _event(self) -> asyncio.Event:
        loop = asyncio.get_running_loop()
        if self._resumed is None or self._resumed[0] is not loop:
            self._resumed = (loop, asyncio.Event())
        return self._resumed[1]

    def _announce(self, previous: Mode, reason: str, emit: Emit | None, agent: str) -> ModeChanged:
        event = ModeChanged(previous=previous, current=self.current, reason=reason, agent=agent)
        if emit is not None:
            emit(event)
        for listener in self._listeners:
            listener(event)
        return event


def is_read_only(spec: ToolSpec, read_only_tools: Sequence[str] = ()) -> bool:
    """Whether plan mode offers the tool: read-only built-ins and tools named (or matched) in ``read_only_tools``.

    An MCP tool counts only when the rules name it: a server's ``readOnlyHint`` is its own claim.
    """
    if spec.name in READ_ONLY_BUILTINS or (spec.read_only and spec.kind != "mcp"):
        return True
    return any(name_matches(pattern, spec.name) for pattern in read_only_tools)


class ModeFilter(WrapperToolset):
    """In plan mode, hides every tool that is not read-only and refuses calls to them; in work mode, passes."""

    def __init__(self, inner: Toolset, modes: ModeManager, read_only_tools: Sequence[str] = ()) -> None:
        super().__init__(inner)
        self.modes = modes
        self.read_only_tools = tuple(read_only_tools)

    def _hidden(self, spec: ToolSpec) -> bool:
        return self.modes.working_mode == "plan" and not is_read_only(spec, self.read_only_tools)

    def specs(self) -> Sequence[ToolSpec]:
        return [spec for spec in self.inner.specs() if not self._hidden(spec)]

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        hidden = next((s for s in self.inner.specs() if s.name == call.name and self._hidden(s)), None)
        if hidden is not None:
            return ToolResult.error(f"{call.name} is not available in plan mode (read-only tools only).")
        return await self.inner.call(call, ctx)
