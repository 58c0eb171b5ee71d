"""A tool that does nothing, so a benchmark measures hive's machinery and not the tool."""

from __future__ import annotations

from msgspec import Struct

from engine.tools.base import ArgsTool, ToolContext, ToolResult


class NoArgs(Struct):
    """No arguments at all."""


class Noop(ArgsTool[NoArgs]):
    """Answers "ok" at once."""

    name = "noop"
    description = "Does nothing."
    args_model = NoArgs
    read_only = True

    async def execute(self, args: NoArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult("ok")
