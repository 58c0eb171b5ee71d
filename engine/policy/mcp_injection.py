"""The prompt-injection guard as it is on by default: on MCP results only, its patterns loaded at the first one.

A run that calls no MCP tool never imports :mod:`engine.policy.injection` (hive's start path stays as it was).
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from engine.events import ToolCall
from engine.policy.guards import Allow, GuardVerdict
from engine.tools.base import ToolResult

MCP_PREFIX = "mcp__"


class McpInjectionGuard(Struct, frozen=True):
    """Flags (or withholds) MCP results that look like prompt injection; every other result passes."""

    action: Literal["flag", "withhold"] = "flag"
    name: str = "prompt-injection guard"

    async def check(self, call: ToolCall, result: ToolResult) -> GuardVerdict:
        """Allow results of other tools; judge an MCP result as :class:`PromptInjectionGuard` does."""
        if not call.name.startswith(MCP_PREFIX):
            return Allow()
        from engine.policy.injection import PromptInjectionGuard  # its patterns at the first MCP result

        return await PromptInjectionGuard(action=self.action, name=self.name).check(call, result)
