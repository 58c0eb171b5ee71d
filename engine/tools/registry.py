"""A toolset made of plain tools, and the base class for toolset wrappers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from engine.events import ToolCall
from engine.tools.base import Tool, ToolContext, ToolResult, Toolset, ToolSpec


class ToolRegistry:
    """Tools addressed by name, offered in registration order. A later tool replaces an earlier namesake."""

    def __init__(self, tools: Iterable[Tool] = (), declared: Iterable[ToolSpec] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._declared: dict[str, ToolSpec] = {}
        for tool in tools:
            self.add(tool)
        for spec in declared:
            self.declare(spec)

    def add(self, tool: Tool) -> None:
        """Register a tool the engine runs."""
        self._tools[tool.spec.name] = tool

    def declare(self, spec: ToolSpec) -> None:
        """Register a tool the host runs: calls to it stop the loop and come back as pending."""
        self._declared[spec.name] = replace(spec, declared_only=True)

    def specs(self) -> Sequence[ToolSpec]:
        return [tool.spec for tool in self._tools.values()] + list(self._declared.values())

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        tool = self._tools.get(call.name)
        if tool is None:
            names = ", ".join(sorted(self._tools)) or "none"
            return ToolResult.error(f"Unknown tool {call.name!r}. Available tools: {names}.")
        return await tool.run(call.arguments, ctx)


class WrapperToolset:
    """Passes everything to ``inner``; subclasses override what they change."""

    def __init__(self, inner: Toolset) -> None:
        self.inner = inner

    def specs(self) -> Sequence[ToolSpec]:
        return self.inner.specs()

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        return await self.inner.call(call, ctx)
