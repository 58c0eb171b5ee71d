"""The whole batch's budget and its progress: what was spent, what is left, and a line to say so."""

from __future__ import annotations

import sys
import time

from msgspec import Struct
from rich.control import Control
from rich.segment import ControlType

from hive_cli.safe_console import SafeConsole
from hive_cli.terminal_text import echo

QUIET_LINE_EVERY_S = 60.0
"""Without a terminal, an unchanged count is written again at most this often (logs stay short)."""


class Budget:
    """Dollars for the whole batch (None: no limit). New tasks start only while less than that is spent.

    Tasks already running finish, so a batch can end above its budget by what they cost. Unpriced tasks
    (a model with no known price) spend nothing against it.
    """

    def __init__(self, limit_usd: float | None, spent_usd: float = 0.0) -> None:
        self.limit_usd = limit_usd
        self.spent_usd = spent_usd

    def spend(self, cost_usd: float | None) -> None:
        """Count a finished task's cost."""
        self.spent_usd += cost_usd or 0.0

    def reached(self) -> bool:
        """Whether no new task may start."""
        return self.limit_usd is not None and self.spent_usd >= self.limit_usd


class Counts(Struct, kw_only=True):
    """Where the batch stands."""

    total: int
    done: int = 0
    """Finished in this run or an earlier one (succeeded or failed)."""
    failed: int = 0
    running: int = 0
    finished_here: int = 0
    """Finished by this run (the pace of the estimate)."""


class Progress:
    """The progress line on stderr: rewritten in place at a terminal, one plain line per change otherwise."""

    def __init__(self, counts: Counts, budget: Budget) -> None:
        self.counts = counts
        self.budget = budget
        self.started = self.shown_at = time.monotonic()
        self.console = SafeConsole(stderr=True, highlight=False) if sys.stderr.isatty() else None

    def started_one(self) -> None:
        """A task started."""
        self.counts.running += 1
        self.show()

    def finished_one(self, failed: bool, cost_usd: float | None) -> None:
        """A task finished (and its result is written)."""
        self.counts.running = max(self.counts.running - 1, 0)  # on Ray none is counted running
        self.counts.done += 1
        self.counts.finished_here += 1
        self.counts.failed += int(failed)
        self.budget.spend(cost_usd)
        self.show()

    def line(self) -> str:
        """``hive batch: 3/8 done · 2 running · 1 failed · 3 left · $0.0123 · about 40 s left``."""
        c = self.counts
        left = c.total - c.done - c.running
        cost = f"${self.budget.spent_usd:.4f}"
        if self.budget.limit_usd is not None:
            cost += f" of ${self.budget.limit_usd:.4f}"
        parts = [f"{c.done}/{c.total} done", f"{c.running} running", f"{c.failed} failed", f"{left} left", cost]
        return "hive batch: " + " · ".join([*parts, self.estimate()])

    def estimate(self) -> str:
        """Time left at this run's pace so far (the running tasks counted as half done)."""
        c = self.counts
        if c.finished_here == 0:
            return "time left not known yet"
        pace = (time.monotonic() - self.started) / c.finished_here
        return f"about {_duration(pace * (c.total - c.done - c.running / 2))} left"

    def tick(self) -> None:
        """Time passed with no task ending: the estimate again, in place at a terminal; else a line a minute."""
        if self.console is not None or time.monotonic() - self.shown_at >= QUIET_LINE_EVERY_S:
            self.show()

    def show(self) -> None:
        """Write the line."""
        self.shown_at = time.monotonic()
        if self.console is None:
            echo(self.line(), err=True)
            return
        self.console.control(Control.move_to_column(0), Control((ControlType.ERASE_IN_LINE, 2)))
        self.console.print(self.line(), end="", markup=False, highlight=False, soft_wrap=True)

    def end(self) -> None:
        """End the line in place (at a terminal)."""
        if self.console is not None:
            self.console.print()


def _duration(seconds: float) -> str:
    seconds = max(seconds, 0.0)
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
