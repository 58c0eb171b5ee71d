"""The recall_result tool: the whole result of an earlier call whose result the requests now mask."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated

from msgspec import Meta

from engine.context.masking import RECALL_TOOL
from engine.model.types import Message
from engine.tools.args import ToolArgs
from engine.tools.base import ArgsTool, ToolContext, ToolResult, Toolset
from engine.tools.registry import ToolRegistry


class RecallArgs(ToolArgs, frozen=True):
    id: Annotated[
        str, Meta(min_length=1, description="The id of the tool call, as the placeholder of its result names it.")
    ]


class RecallResultTool(ArgsTool[RecallArgs]):
    """Reads a result back out of the conversation, where it is always kept whole."""

    name = RECALL_TOOL
    description = (
        "Bring back the full result of an earlier tool call whose result was masked to save context "
        '(it shows as "[result of ... masked: ...]"). Give the call id the placeholder names.'
    )
    args_model = RecallArgs
    read_only = True

    def __init__(self, history: Callable[[], Sequence[Message]]) -> None:
        self._history = history

    async def execute(self, args: RecallArgs, ctx: ToolContext) -> ToolResult:
        for message in reversed(self._history()):
            if message.get("role") == "tool" and message.get("tool_call_id") == args.id:
                return ToolResult(str(message.get("content") or ""))
        return ToolResult.error(f"no tool call {args.id!r} in this conversation")


def recall_toolset(history: Callable[[], Sequence[Message]]) -> Toolset:
    """A toolset offering ``recall_result`` over ``history`` (the whole conversation, unmasked)."""
    return ToolRegistry([RecallResultTool(history)])
