"""What a research run tells its host while it works: a closed union of small frozen events.

Standard library only (plus ``engine.usage``), so any host can render them. The last event of a run
is always ``ResearchFinished``, carrying the whole result.
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from engine.research.result import ResearchResult
from engine.usage import Usage

Stage = Literal["search", "plan", "fetch", "notes", "judge", "write"]


class StageStarted(Struct, frozen=True, kw_only=True):
    """A stage of the pipeline began."""

    kind: Literal["stage_started"] = "stage_started"
    stage: Stage
    iteration: int
    """0 for the initial search, then 1, 2, ..."""


class IterationStarted(Struct, frozen=True, kw_only=True):
    """A new round of plan, search, read and judge began."""

    kind: Literal["iteration_started"] = "iteration_started"
    iteration: int
    max_iterations: int


class QueriesPlanned(Struct, frozen=True, kw_only=True):
    """The queries this iteration searches for."""

    kind: Literal["queries_planned"] = "queries_planned"
    iteration: int
    queries: tuple[str, ...]


class SourcesFound(Struct, frozen=True, kw_only=True):
    """Searching found ``new`` candidates not seen before (``total`` so far)."""

    kind: Literal["sources_found"] = "sources_found"
    iteration: int
    new: int
    total: int


class SourceRead(Struct, frozen=True, kw_only=True):
    """A source was read, passed the guards and got its notes; ``number`` is its registry number."""

    kind: Literal["source_read"] = "source_read"
    number: int
    title: str
    url: str
    read: int
    """Sources read so far."""


class SourceDropped(Struct, frozen=True, kw_only=True):
    """A candidate was not used: it could not be read, or a guard withheld it."""

    kind: Literal["source_dropped"] = "source_dropped"
    url: str
    reason: str
    withheld: bool = False
    """True when a result guard (the prompt-injection guard) withheld it."""
    unreachable: bool = False
    """True when it could not be read because the network could not be reached."""


class Judged(Struct, frozen=True, kw_only=True):
    """The judge's verdict on the notes so far."""

    kind: Literal["judged"] = "judged"
    iteration: int
    score: float
    gaps: tuple[str, ...]
    readable: bool
    """False when the judge's reply was not the JSON asked for (then the score counts as 0)."""


class UsageUpdated(Struct, frozen=True, kw_only=True):
    """A model call finished; ``total`` is what the run has used so far."""

    kind: Literal["usage_updated"] = "usage_updated"
    stage: Stage
    total: Usage


class DocumentsIndexed(Struct, frozen=True, kw_only=True):
    """The documents folder was indexed: ``read`` files read now, ``kept`` taken from the index an earlier
    run kept, ``gone`` dropped from it (deleted since); ``note`` says why the kept index was not used or written."""

    kind: Literal["documents_indexed"] = "documents_indexed"
    folder: str
    files: int
    read: int
    kept: int
    gone: int
    note: str = ""


class ResearchNotice(Struct, frozen=True, kw_only=True):
    """Something the person should know (a provider took over, a search failed, a reply was unreadable)."""

    kind: Literal["research_notice"] = "research_notice"
    message: str


class ResearchFinished(Struct, frozen=True, kw_only=True):
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
    | DocumentsIndexed
    | ResearchNotice
    | ResearchFinished
)
"""Everything a research run emits."""
