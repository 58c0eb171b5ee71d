"""The stop rule, in code: when the research loop goes on and when it writes the report.

Go on only while every one of these holds: iterations are left (the depth preset caps them), the
budget is not spent, the run has not stalled, and the notes are not sufficient, where sufficient
means a score at the threshold, unless fewer than the minimum sources were read and a gap remains.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from msgspec import Struct

from engine.research.options import Depth, ResearchOptions
from engine.research.replies import Judgement
from engine.research.result import StopReason


class DepthPreset(Struct, frozen=True, kw_only=True):
    """How far a depth goes."""

    max_iterations: int
    queries: int
    """Queries planned per iteration."""
    results_per_query: int = 5
    pages_per_iteration: int = 8


PRESETS: dict[Depth, DepthPreset] = {
    "quick": DepthPreset(max_iterations=1, queries=2),
    "standard": DepthPreset(max_iterations=3, queries=3),
    "deep": DepthPreset(max_iterations=5, queries=5),
}
REPEATED_QUERY = 0.8
"""Token-set Jaccard similarity from which a query counts as one already searched."""


def max_iterations(options: ResearchOptions) -> int:
    """The iterations allowed: ``max_iterations`` when set, capped by the depth preset."""
    cap = PRESETS[options.depth].max_iterations
    return cap if options.max_iterations is None else min(options.max_iterations, cap)


class LoopState(Struct, frozen=True, kw_only=True):
    """What the stop rule looks at after an iteration was judged."""

    iteration: int
    judgement: Judgement
    sources: int
    """Sources read so far."""
    new_sources: int
    """Sources this iteration added."""
    fresh_queries: int
    """Queries this iteration searched that were not repeats of earlier ones."""


def stop_reason(state: LoopState, options: ResearchOptions) -> StopReason | None:
    """Why the loop stops after this iteration, or None to go on."""
    judgement = state.judgement
    too_few = state.sources < options.min_sources_before_report and bool(judgement.gaps)
    if judgement.score >= options.sufficiency_threshold and not too_few:
        return "sufficient"
    if state.iteration >= max_iterations(options):
        return "max_iterations"
    if state.new_sources == 0 or state.fresh_queries == 0:
        return "stalled"
    return None


def words(query: str) -> frozenset[str]:
    """A query's words, lower-cased."""
    return frozenset(re.findall(r"\w+", query.lower()))


def is_repeat(query: str, earlier: Iterable[str]) -> bool:
    """Whether ``query`` says what one of ``earlier`` said (Jaccard of word sets at least ``REPEATED_QUERY``)."""
    mine = words(query)
    for other in earlier:
        theirs = words(other)
        union = mine | theirs
        if union and len(mine & theirs) / len(union) >= REPEATED_QUERY:
            return True
    return False
