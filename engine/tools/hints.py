"""Hints in tool messages that name another tool, given only when the model was offered that tool.

A sub-agent with a narrow tool list, plan mode or the tool retriever can leave a tool out of a round;
a message telling the model to use it then sends it after a tool it cannot call. The loop puts the
names it offered into ``ToolContext.offered``; a tool run outside a loop (``offered`` is None) hints as
if everything were offered.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.tools.base import ToolContext, ToolResult


def offered(ctx: ToolContext, tool: str) -> bool:
    """Whether the model may call ``tool`` in this round (True when nobody said what was offered)."""
    return ctx.offered is None or tool in ctx.offered


def hint(ctx: ToolContext, tool: str, text: str) -> str:
    """``text`` when the model was offered ``tool`` in this round, else nothing."""
    return text if offered(ctx, tool) else ""


def unknown_tool(name: str, available: Iterable[str], ctx: ToolContext) -> ToolResult:
    """The answer to a call of a tool nobody offers: the ``available`` tools the model was offered this round."""
    names = ", ".join(sorted(tool for tool in available if offered(ctx, tool))) or "none"
    return ToolResult.error(f"Unknown tool {name!r}. Available tools: {names}.")
