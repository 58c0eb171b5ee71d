"""The most tools one request may carry: what the provider accepts, whatever the settings and providers add.

OpenAI's chat and Responses APIs refuse a request with more than 128 functions. hive does not know every
provider's limit, so a provider it has no number for gets the same 128: a request over it would fail
outright, one under it only leaves out tools the model could not have used well anyway. The built-in
tools are kept first, then the others in the order they were offered (retrieval puts the pinned and
best-scoring ones first).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.tools.base import Toolset, ToolSpec
from engine.tools.registry import WrapperToolset

PROVIDER_TOOL_LIMIT = 128
"""Functions OpenAI (and Azure's OpenAI) accept in one request; the limit hive keeps for every provider, since
it knows no other's number."""


class ToolCap(WrapperToolset):
    """``inner`` offering at most ``limit`` tools: the built-ins first, then the rest in order."""

    def __init__(self, inner: Toolset, limit: int) -> None:
        super().__init__(inner)
        self.limit = limit

    def specs(self) -> Sequence[ToolSpec]:
        specs = self.inner.specs()
        if len(specs) <= self.limit:
            return specs
        builtin = [spec for spec in specs if spec.kind == "tool"]
        others = [spec for spec in specs if spec.kind != "tool"]
        kept = {spec.name for spec in [*builtin, *others][: self.limit]}
        return [spec for spec in specs if spec.name in kept]
