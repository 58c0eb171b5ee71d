"""Guards: checks on tool results (and, for MCP, on calls before they are sent), failing closed.

A result guard looks at a finished call's result and answers :class:`Allow`, :class:`Replace`
(new text for the model) or :class:`Withhold` (the model gets "Tool result withheld by guard: ..."
and the call counts as failed). A guard that raises withholds. A call guard also answers before the
call is dispatched: :class:`Allow` or :class:`Block`; a call guard that raises blocks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from msgspec import Struct

from engine.events import ToolCall
from engine.tools.base import ToolContext, ToolResult, Toolset
from engine.tools.registry import WrapperToolset

WITHHELD_PREFIX = "Tool result withheld by guard: "
BLOCKED_PREFIX = "Tool call blocked by guard: "


class Allow(Struct, frozen=True):
    """Let the result (or call) through unchanged."""


class Replace(Struct, frozen=True):
    """Give the model ``text`` instead of the result's output."""

    text: str


class Withhold(Struct, frozen=True):
    """Keep the result from the model; ``reason`` is what the model is told."""

    reason: str


class Block(Struct, frozen=True):
    """Do not send the call; ``reason`` is what the model is told."""

    reason: str


GuardVerdict = Allow | Replace | Withhold
CallCheck = Allow | Block


class ResultGuard(Protocol):
    """Inspects every tool result before the model sees it."""

    @property
    def name(self) -> str:
        """Shown when the guard withholds a result or fails."""
        ...

    async def check(self, call: ToolCall, result: ToolResult) -> GuardVerdict:
        """The verdict on ``call``'s result; raising withholds it."""
        ...


class CallGuard(ResultGuard, Protocol):
    """Inspects a call before it is dispatched (e.g. to an MCP server), and its result afterwards."""

    async def before(self, call: ToolCall) -> CallCheck:
        """Whether ``call`` may be dispatched; raising blocks it."""
        ...


async def apply_guards(guards: Sequence[ResultGuard], call: ToolCall, result: ToolResult) -> ToolResult:
    """``result`` after every guard, in order: replaced text carries on to the next guard; a withhold ends it."""
    current = result
    for guard in guards:
        verdict = await _checked(guard, call, current)
        if isinstance(verdict, Withhold):
            return ToolResult.error(WITHHELD_PREFIX + verdict.reason)
        if isinstance(verdict, Replace):
            current = ToolResult(verdict.text, current.success, images=current.images)
    return current


async def guarded_call(
    guards: Sequence[CallGuard], call: ToolCall, dispatch: Callable[[], Awaitable[ToolResult]]
) -> ToolResult:
    """Ask every call guard, run ``dispatch`` only if none blocks, then pass the result through them all."""
    for guard in guards:
        check = await _before(guard, call)
        if isinstance(check, Block):
            return ToolResult.error(BLOCKED_PREFIX + check.reason)
    return await apply_guards(guards, call, await dispatch())


class GuardedToolset(WrapperToolset):
    """Passes every result of the inner toolset through the result guards."""

    def __init__(self, inner: Toolset, guards: Sequence[ResultGuard]) -> None:
        super().__init__(inner)
        self.guards = tuple(guards)

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        result = await self.inner.call(call, ctx)
        return await apply_guards(self.guards, call, result)


async def _checked(guard: ResultGuard, call: ToolCall, result: ToolResult) -> GuardVerdict:
    try:
        verdict: object = await guard.check(call, result)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # fail closed: a broken guard must not let a result through
        return Withhold(f"{_name(guard)} failed ({type(exc).__name__}: {exc})")
    if not isinstance(verdict, Allow | Replace | Withhold):
        return Withhold(f"{_name(guard)} gave no verdict")
    return verdict


async def _before(guard: CallGuard, call: ToolCall) -> CallCheck:
    try:
        check: object = await guard.before(call)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # fail closed: a broken guard must not let a call through
        return Block(f"{_name(guard)} failed ({type(exc).__name__}: {exc})")
    if not isinstance(check, Allow | Block):
        return Block(f"{_name(guard)} gave no verdict")
    return check


def _name(guard: object) -> str:
    return str(getattr(guard, "name", None) or type(guard).__name__)
