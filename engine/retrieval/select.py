"""The selection rule: which tools one request offers, given their scores.

With ``pinned`` the tools of ``always_include`` (in that order) plus the tools the session already
used, and ``floor = min(min_scored_slots, max_tools)``:

- every pinned tool is selected first;
- then up to ``budget = max(floor, max_tools - len(pinned))`` of the other tools, the highest
  scores first (ties keep the offered order), each scoring at least ``min_relevance_score``.

So pins can never crowd the scored tools below the floor, and more than ``max_tools`` tools are
offered only when the pins alone take more than ``max_tools - floor`` slots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from msgspec import Struct


class SelectionRule(Struct, frozen=True, kw_only=True):
    """The numbers of the ``tool_retrieval`` settings that decide a selection."""

    max_tools: int
    min_relevance_score: float
    min_scored_slots: int

    def floor(self) -> int:
        """The scored slots kept however many tools are pinned."""
        return min(self.min_scored_slots, self.max_tools)

    def budget(self, pinned: int) -> int:
        """How many scored tools may join ``pinned`` pinned ones."""
        return max(self.floor(), self.max_tools - pinned)


def select_tools(
    names: Sequence[str], scores: Mapping[str, float], pinned: Sequence[str], rule: SelectionRule
) -> list[str]:
    """The selected names: the pinned ones present in ``names`` first, then the best-scoring others."""
    available = set(names)
    pins = list(dict.fromkeys(name for name in pinned if name in available))
    pinned_set = set(pins)
    ranked = sorted(
        (name for name in names if name not in pinned_set and scores.get(name, 0.0) >= rule.min_relevance_score),
        key=lambda name: -scores.get(name, 0.0),
    )
    return pins + ranked[: rule.budget(len(pins))]
