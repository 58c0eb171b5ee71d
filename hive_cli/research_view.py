"""Research progress: one line per event on a pipe, a live status panel on a terminal.

Both views read the same ``Progress`` tally; ``describe`` turns each event into its line (one small
function per event kind), and the live view prints those lines above a panel it keeps current.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, assert_never

from msgspec import Struct, field

from engine.research.events import (
    DocumentsIndexed,
    IterationStarted,
    Judged,
    QueriesPlanned,
    ResearchEvent,
    ResearchFinished,
    ResearchNotice,
    SourceDropped,
    SourceRead,
    SourcesFound,
    StageStarted,
    UsageUpdated,
)
from engine.usage import Usage
from hive_cli.output.summaries import cost_text, total_tokens_text
from hive_cli.terminal_text import visible, write_shown

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live

STAGE_WORDS = {
    "search": "searching",
    "plan": "planning queries",
    "fetch": "reading sources",
    "notes": "taking notes",
    "judge": "judging sufficiency",
    "write": "writing the report",
}


class Progress(Struct):
    """What the run has done so far, as the status shows it."""

    stage: str = "starting"
    iteration: int = 0
    max_iterations: int = 0
    queries: tuple[str, ...] = ()
    found: int = 0
    read: int = 0
    usage: Usage = field(default_factory=Usage)

    def update(self, event: ResearchEvent) -> None:
        """Take ``event`` into the tally."""
        if isinstance(event, StageStarted):
            self.stage = STAGE_WORDS[event.stage]
        elif isinstance(event, IterationStarted):
            self.iteration, self.max_iterations = event.iteration, event.max_iterations
        elif isinstance(event, QueriesPlanned):
            self.queries = event.queries
        elif isinstance(event, SourcesFound):
            self.found = event.total
        elif isinstance(event, SourceRead):
            self.read = event.read
        elif isinstance(event, UsageUpdated):
            self.usage = event.total

    def status(self) -> str:
        """One line: stage, iteration, sources, tokens and cost."""
        iteration = f"iteration {self.iteration}/{self.max_iterations}" if self.iteration else "initial search"
        return (
            f"{self.stage} · {iteration} · {self.found} found · {self.read} read · "
            f"{total_tokens_text(self.usage)} · {cost_text(self.usage)}"
        )


def describe(event: ResearchEvent) -> str | None:
    """The line that tells ``event`` (None for events the status line alone shows), on one line.

    Titles, addresses and reasons come from web pages and documents: their control characters are shown.
    """
    line = _describe(event)
    return None if line is None else visible(line)


def _describe(event: ResearchEvent) -> str | None:
    match event:
        case StageStarted() | UsageUpdated() | ResearchFinished():
            return None
        case IterationStarted():
            return f"iteration {event.iteration} of at most {event.max_iterations}"
        case QueriesPlanned():
            return "queries: " + ("; ".join(event.queries) or "(none new)")
        case SourcesFound():
            return f"found {event.new} new candidate(s), {event.total} so far"
        case SourceRead():
            return f"read [{event.number}] {event.title}"
        case SourceDropped():
            return f"{'withheld' if event.withheld else 'dropped'} {event.url}: {event.reason}"
        case Judged():
            gaps = f"; gaps: {'; '.join(event.gaps)}" if event.gaps else ""
            return f"sufficiency {event.score:.2f}{'' if event.readable else ' (unreadable verdict)'}{gaps}"
        case DocumentsIndexed():
            return indexed_line(event)
        case ResearchNotice():
            return event.message
        case _:
            assert_never(event)


def indexed_line(event: DocumentsIndexed) -> str:
    """``indexed 120 document(s) in DIR: 2 read, 118 kept from an earlier run, 1 gone``, and why it was not kept."""
    parts = [f"{event.read:,} read", f"{event.kept:,} kept from an earlier run"]
    if event.gone:
        parts.append(f"{event.gone:,} gone")
    note = f"; {event.note}" if event.note else ""
    return f"indexed {event.files:,} document(s) in {event.folder}: {', '.join(parts)}{note}"


class PlainProgress:
    """``research: ...`` lines on a stream (stderr when it is not a terminal)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.progress = Progress()

    def handle(self, event: ResearchEvent) -> None:
        """Write the line for ``event``, if it has one."""
        self.progress.update(event)
        line = describe(event)
        if line is not None:
            write_shown(self.stream, f"research: {line}\n")

    def close(self) -> None:
        """Nothing to tear down."""


class LiveProgress:
    """A status line kept current at the bottom of the terminal, with each event's line printed above it."""

    def __init__(self, console: Console) -> None:
        from rich.live import Live
        from rich.text import Text

        self.console = console
        self.progress = Progress()
        self.live: Live = Live(Text(self.progress.status()), console=console, transient=True, refresh_per_second=8)
        self.live.start()

    def handle(self, event: ResearchEvent) -> None:
        """Print the line for ``event`` above the status, and redraw the status."""
        from rich.text import Text

        self.progress.update(event)
        line = describe(event)
        if line is not None:
            self.console.print(Text("  " + line, style="dim"))
        self.live.update(Text("⠿ " + self.progress.status(), style="bold"))

    def close(self) -> None:
        """Take the status line away."""
        self.live.stop()
