"""What a research run tells its host while it works: a closed union of small frozen events.

Standard library only (plus ``engine.usage``), so any host can render them. The last event of a run
is always ``ResearchFinished``, carrying the whole result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.research.result import ResearchResult
from engine.usage import Usage

Stage = Literal["search", "plan", "fetch", "notes", "judge", "write"]


@dataclass(frozen=True, kw_only=True)
class StageStarted:
    """A stage of the pipeline began."""

    kind: Literal["stage_started"] = "stage_started"
    stage: Stage
    iteration: int
    """0 for the initial search, then 1, 2, ..."""


@dataclass(frozen=True, kw_only=True)
class IterationStarted:
    """A new round of plan, search, read and judge began."""

    kind: Literal["iteration_started"] = "iteration_started"
    iteration: int
    max_iterations: int


@dataclass(frozen=True, kw_only=True)
class QueriesPlanned:
    """The queries this iteration searches for."""

    kind: Literal["queries_planned"] = "queries_planned"
    iteration: int
    queries: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class SourcesFound:
    """Searching found ``new`` candidates not seen before (``total`` so far)."""

    kind: Literal["sources_found"] = "sources_found"
    iteration: int
    new: int
    total: int


@dataclass(frozen=True, kw_only=True)
class SourceRead:
    """A source was read, passed the guards and got its notes; ``number`` is its registry number."""

    kind: Literal["source_read"] = "source_read"
    number: int
    title: str
    url: str
    read: int
    """Sources read so far."""


@dataclass(frozen=True, kw_only=True)
class SourceDropped:
    """A candidate was not used: it could not be read, or a guard withheld it."""

    kind: Literal["source_dropped"] = "source_dropped"
    url: str
    reason: str
    withheld: bool = False
    """True when a result guard (the prompt-injection guard) withheld it."""


@dataclass(frozen=True, kw_only=True)
class Judged:
    """The judge's verdict on the notes so far."""

    kind: Literal["judged"] = "judged"
    iteration: int
    score: float
    gaps: tuple[str, ...]
    readable: bool
    """False when the judge's reply was not the JSON asked for (then the score counts as 0)."""


@dataclass(frozen=True, kw_only=True)
class UsageUpdated:
    """A model call finished; ``total`` is what the run has used so far."""

    kind: Literal["usage_updated"] = "usage_updated"
    stage: Stage
    total: Usage


@dataclass(frozen=True, kw_only=True)
class ResearchNotice:
    """Something the person should know (a provider took over, a search failed, a reply was unreadable)."""

    kind: Literal["research_notice"] = "research_notice"
    message: str


@dataclass(frozen=True, kw_only=True)
class ResearchFinished:
    """The run ended; ``result`` holds the report, its sources, the iterations and the usage."""

    kind: Literal["research_finished"] = "research_finished"
    result: ResearchResult


ResearchEvent = (
    StageStarted
    | IterationStarted
    | QueriesPlanned
    | SourcesFound
    | SourceRead
    | SourceDropped
    | Judged
    | UsageUpdated
    | ResearchNotice
    | ResearchFinished
)
"""Everything a research run emits."""
