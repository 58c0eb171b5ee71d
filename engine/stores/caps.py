"""Which entries of a store go: over its age, count or size cap, the oldest first; never a protected one.

An entry is what a store keeps as one (a session file, a turn, a saved output), known by its name and
its ``stat`` alone: nothing here reads a file. The choice is pure, so ``--dry-run`` and the real run
choose alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec import Struct


class Caps(Struct, frozen=True, kw_only=True):
    """A store's bounds: entries older than ``keep_days``, beyond ``max_count`` or ``max_bytes`` in all go."""

    keep_days: int
    max_count: int
    max_bytes: int


class Entry(Struct, frozen=True, kw_only=True):
    """One thing a store keeps: its name, when it was last used (seconds since the epoch) and its size."""

    name: str
    used: float
    size: int


class Verdict(Struct, frozen=True, kw_only=True):
    """What a pruning removes and what it keeps, the oldest first in both."""

    removed: tuple[Entry, ...]
    kept: tuple[Entry, ...]
    protected: tuple[Entry, ...] = ()
    """Entries over a cap kept anyway (a session in use)."""

    @property
    def freed(self) -> int:
        """The bytes the removed entries took."""
        return sum(entry.size for entry in self.removed)


def choose(entries: Sequence[Entry], caps: Caps, now: float, protected: Callable[[Entry], bool]) -> Verdict:
    """The entries to remove: too old, then the oldest until the count and the size are within the caps."""
    ordered = sorted(entries, key=lambda entry: (entry.used, entry.name))
    cutoff = now - caps.keep_days * 86_400
    count, size = len(ordered), sum(entry.size for entry in ordered)
    removed: list[Entry] = []
    kept: list[Entry] = []
    spared: list[Entry] = []
    for entry in ordered:
        over = entry.used < cutoff or count > caps.max_count or size > caps.max_bytes
        if over and not protected(entry):
            removed.append(entry)
            count, size = count - 1, size - entry.size
            continue
        kept.append(entry)
        if over:
            spared.append(entry)
    return Verdict(removed=tuple(removed), kept=tuple(kept), protected=tuple(spared))
