"""The outcome of a research run: the report, the sources it cites, each iteration, and the usage."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from msgspec import Struct

from engine.records import hiding
from engine.usage import Usage

StopReason = Literal["sufficient", "max_iterations", "stalled", "budget", "no_sources"]
"""Why the loop ended: the judge was satisfied, the iterations ran out, nothing new came, the budget ran
out (a partial report), or nothing at all was found."""


class Source(Struct, frozen=True, kw_only=True):
    """A source that was read: its registry number, where it is, and the notes taken on it."""

    number: int
    url: str
    title: str
    provider: str
    accessed: datetime
    text: str
    """The text as it passed the guards (what the notes and ``--verify`` are based on)."""
    notes: str = ""
    flagged: str = ""
    """What a guard said about the text, when it flagged rather than withheld it."""

    __repr__, __rich_repr__ = hiding("text")


class CitedSource(Struct, frozen=True, kw_only=True):
    """A source as the report cites it: ``number`` is its number in the report (in order of first use)."""

    number: int
    source: Source

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        s = self.source
        return {
            "number": self.number,
            "title": s.title,
            "url": s.url,
            "provider": s.provider,
            "accessed": s.accessed.isoformat(timespec="seconds"),
        }


class WeakCitation(Struct, frozen=True, kw_only=True):
    """A cited sentence whose words its source barely contains (``--verify``)."""

    sentence: str
    number: int
    support: float
    """Share of the sentence's content words found in the best-matching passage of the source (0..1)."""


class IterationRecord(Struct, frozen=True, kw_only=True):
    """What one iteration did."""

    number: int
    queries: tuple[str, ...]
    new_sources: int
    score: float
    gaps: tuple[str, ...]
    judge_readable: bool = True

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "number": self.number,
            "queries": list(self.queries),
            "new_sources": self.new_sources,
            "score": self.score,
            "gaps": list(self.gaps),
            "judge_readable": self.judge_readable,
        }


class ResearchResult(Struct, frozen=True, kw_only=True):
    """A finished run."""

    question: str
    report: str
    """The markdown report, its ``## Sources`` section included."""
    sources: tuple[CitedSource, ...]
    iterations: tuple[IterationRecord, ...]
    stop_reason: StopReason
    usage: Usage
    usage_by_stage: tuple[tuple[str, Usage], ...] = ()
    removed_citations: tuple[int, ...] = ()
    """Numbers the writer cited that no source has (removed from the report)."""
    dropped: tuple[tuple[str, str], ...] = ()
    """Candidates not used, with the reason (unreadable, or withheld by a guard)."""
    weak_citations: tuple[WeakCitation, ...] = ()
    read_sources: int = 0
    web_unreachable: bool = False
    """No source was read, and every one tried could not be read because the network could not be reached."""

    @property
    def partial(self) -> bool:
        """True when the budget stopped the run before a written report."""
        return self.stop_reason == "budget"

    def to_dict(self) -> dict[str, Any]:
        """The ``--output-format json`` object: question, report, sources, iterations, usage, and more."""
        return {
            "question": self.question,
            "report": self.report,
            "sources": [s.to_dict() for s in self.sources],
            "iterations": [i.to_dict() for i in self.iterations],
            "usage": {
                "total": self.usage.to_dict(),
                "by_stage": {stage: used.to_dict() for stage, used in self.usage_by_stage},
            },
            "stop_reason": self.stop_reason,
            "partial": self.partial,
            "removed_citations": list(self.removed_citations),
            "dropped_sources": [{"url": url, "reason": reason} for url, reason in self.dropped],
            "weak_citations": [
                {"sentence": w.sentence, "number": w.number, "support": round(w.support, 3)}
                for w in self.weak_citations
            ],
        }
