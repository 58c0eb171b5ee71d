"""Calling one tool from inside another, tracked: the inner call becomes a child of the outer one."""

from __future__ import annotations

from engine.events import ToolCall
from engine.tools.base import ToolContext, ToolResult, Toolset
from engine.tracking.scopes import current_scope
from engine.tracking.tracker import _tool_kind, open_call


async def call_tool(toolset: Toolset, call: ToolCall, ctx: ToolContext) -> ToolResult:
    """Run ``call`` through ``toolset`` from inside a running tool, as a child scope of that tool.

    Its invoking and completed/failed events go into the run's stream (there is no
    ``ToolCallStarted`` for a nested call) and to the observers. Outside a tracked run it simply
    runs the call.
    """
    parent = current_scope.get()
    if parent is None:
        return await toolset.call(call, ctx)
    spec = next((s for s in toolset.specs() if s.name == call.name), None)
    kind = _tool_kind(call.name, spec.kind if spec else "tool")
    tracking = open_call(parent, call, kind, spec.source if spec else None, ctx.emit, in_band=True)
    result = ToolResult("Tool call cancelled.", False)
    try:
        with tracking:
            result = await toolset.call(call, ctx)
    finally:
        tracking.close(result.success)
    return result
