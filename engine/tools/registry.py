"""A toolset made of plain tools (whose list may change while a session runs), and the base of toolset wrappers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from msgspec.structs import replace

from engine.events import ToolCall
from engine.tools.base import Tool, ToolContext, ToolResult, Toolset, ToolSpec, start_toolset, stop_toolset
from engine.tools.hints import unknown_tool

ToolsChanged = Callable[[Sequence[ToolSpec]], None]
"""Told the new specs when a registry's tools are replaced."""


class ToolRegistry:
    """Tools addressed by name, offered in registration order. A later tool replaces an earlier namesake."""

    def __init__(self, tools: Iterable[Tool] = (), declared: Iterable[ToolSpec] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._declared: dict[str, ToolSpec] = {}
        self._listeners: list[ToolsChanged] = []
        for tool in tools:
            self.add(tool)
        for spec in declared:
            self.declare(spec)

    def replace_tools(self, tools: Iterable[Tool]) -> None:
        """Offer ``tools`` instead of the current ones (e.g. after an MCP server's ``tools/list_changed``).

        The next model request sees the new list; a call to a tool that went away gets an error result.
        """
        self._tools = {tool.spec.name: tool for tool in tools}
        specs = self.specs()
        for listener in self._listeners:
            listener(specs)

    def listen(self, listener: ToolsChanged) -> None:
        """Call ``listener`` with the new specs whenever the tools are replaced."""
        self._listeners.append(listener)

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
            return unknown_tool(call.name, self._tools, ctx)
        return await tool.run(call.arguments, ctx)


class WrapperToolset:
    """Passes everything to ``inner`` (its lifecycle included); subclasses override what they change."""

    def __init__(self, inner: Toolset) -> None:
        self.inner = inner

    def specs(self) -> Sequence[ToolSpec]:
        return self.inner.specs()

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        return await self.inner.call(call, ctx)

    def caveats(self, call: ToolCall, ctx: ToolContext) -> tuple[str, ...]:
        """What a person deciding on ``call`` should know of what the wrappers below will do with it (blocking).

        A checkpoint that cannot keep the file a call changes says so here; by default, what ``inner`` says.
        """
        return self.inner.caveats(call, ctx) if isinstance(self.inner, WrapperToolset) else ()

    async def start(self) -> None:
        await start_toolset(self.inner)

    async def stop(self) -> None:
        await stop_toolset(self.inner)
