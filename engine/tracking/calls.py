"""Calling one tool from inside another, tracked: the inner call becomes a child of the outer one."""

from __future__ import annotations

from msgspec.structs import replace

from engine.events import ToolCall
from engine.run.tool_round import run_traced_call
from engine.run.trace import CallTrace, UntracedCall
from engine.tools.base import ToolContext, ToolResult, Toolset
from engine.tracking.scopes import current_scope
from engine.tracking.tracker import open_call


async def call_tool(toolset: Toolset, call: ToolCall, ctx: ToolContext) -> ToolResult:
    """Run ``call`` through ``toolset`` from inside a running tool, as a child scope of that tool.

    It has the lifecycle of every call (``ToolCallStarted``, ``ToolProgress``, ``ToolCallFinished``, one
    level deeper than the calling tool) in the run's stream, the streams around it and the observers.
    """
    spec = next((s for s in toolset.specs() if s.name == call.name), None)
    parent = current_scope.get()
    inner_ctx = replace(ctx, call_id=call.id)
    trace: CallTrace
    if parent is None:
        trace = UntracedCall(ctx.emit)
    else:
        trace = open_call(parent, call, spec.kind if spec else "tool", spec.source if spec else None, ctx.emit)
    outcome = await run_traced_call(call, toolset, spec, inner_ctx, trace)
    return ToolResult(outcome.output, outcome.success)
