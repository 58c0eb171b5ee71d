"""Composing toolsets: several offered as one.

These are how capabilities attach: each tool provider (the built-ins, skills, an MCP server, the
agents) gives a toolset; ``CombinedToolset`` offers them together and starts and stops those with a
lifecycle. It reads its members' specs on every call, so a member whose tools change while a session
runs is seen at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from engine.events import ToolCall
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec, start_toolset, stop_toolset
from engine.tools.hints import unknown_tool

ToolsetWrapper = Callable[[Toolset], Toolset]
"""Puts a toolset behind some behaviour (a gate, a guard, a checkpoint) and returns the wrapped one."""


class CombinedToolset:
    """Several toolsets offered as one. A name an earlier member offers hides that name in later members."""

    def __init__(self, members: Sequence[Toolset]) -> None:
        self.members = tuple(members)

    def specs(self) -> Sequence[ToolSpec]:
        seen: dict[str, ToolSpec] = {}
        for member in self.members:
            for spec in member.specs():
                seen.setdefault(spec.name, spec)
        return list(seen.values())

    def shadowed(self) -> list[str]:
        """Names offered by more than one member (only the first member's tool is offered)."""
        counts: dict[str, int] = {}
        for member in self.members:
            for spec in member.specs():
                counts[spec.name] = counts.get(spec.name, 0) + 1
        return [name for name, count in counts.items() if count > 1]

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        for member in self.members:
            if any(spec.name == call.name for spec in member.specs()):
                return await member.call(call, ctx)
        return unknown_tool(call.name, (spec.name for spec in self.specs()), ctx)

    async def start(self) -> None:
        """Start every member that has a lifecycle, in order; on a failure, stop those already started."""
        started: list[Toolset] = []
        try:
            for member in self.members:
                await start_toolset(member)
                started.append(member)
        except BaseException:
            await _stop_all(reversed(started))
            raise

    async def stop(self) -> None:
        """Stop every member, the last first; every member is stopped even if one fails (the first error is raised)."""
        await _stop_all(reversed(self.members))


async def _stop_all(members: Iterable[Toolset]) -> None:
    failure: BaseException | None = None
    for member in members:
        try:
            await stop_toolset(member)
        except Exception as error:  # the others must still be stopped
            failure = failure or error
    if failure is not None:
        raise failure
