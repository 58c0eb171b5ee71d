"""Plan mode as a toolset wrapper: only read-only tools are offered, and only they may run."""

from __future__ import annotations

from collections.abc import Sequence

from engine.events import ToolCall
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.registry import WrapperToolset


class ReadOnlyFilter(WrapperToolset):
    """Hides every tool that is not read-only (plus ``extra_read_only`` names) and refuses calls to them."""

    def __init__(self, inner: Toolset, extra_read_only: Sequence[str] = ()) -> None:
        super().__init__(inner)
        self.extra_read_only = frozenset(extra_read_only)

    def _allowed(self, spec: ToolSpec) -> bool:
        return spec.read_only or spec.name in self.extra_read_only

    def specs(self) -> Sequence[ToolSpec]:
        return [spec for spec in self.inner.specs() if self._allowed(spec)]

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        hidden = next((s for s in self.inner.specs() if s.name == call.name and not self._allowed(s)), None)
        if hidden is not None:
            return ToolResult.error(f"{call.name} is not available in plan mode (read-only tools only).")
        return await self.inner.call(call, ctx)
