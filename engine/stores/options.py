"""The ``stores`` section of the settings: how much of the saved sessions and long outputs is kept."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from engine.config.validation import StrictRecord

DAY = 86_400
"""Seconds in a day: each store is pruned at most once in this long."""


class StoresOptions(StrictRecord, frozen=True):
    """How much hive keeps of saved sessions and of long command outputs (``.hive/outputs/``).

    Each store is pruned at most once a day, at a session's start: what is over a cap goes, the oldest
    first. The defaults are above what a heavy user makes in a year, so they are rarely reached.
    """

    sessions_keep_days: Annotated[int, Meta(gt=0)] = 365
    """Sessions not used for this many days are removed."""
    sessions_max_count: Annotated[int, Meta(gt=0)] = 5_000
    """At most this many sessions are kept (of every project); the least recently used go first."""
    sessions_max_bytes: Annotated[int, Meta(gt=0)] = 2_000_000_000
    """The session files together take at most this many bytes; the least recently used go first."""
    outputs_keep_days: Annotated[int, Meta(gt=0)] = 30
    """Saved outputs in a project's ``.hive/outputs/`` older than this many days are removed."""
    outputs_max_count: Annotated[int, Meta(gt=0)] = 1_000
    """At most this many saved outputs are kept in a project; the oldest go first."""
    outputs_max_bytes: Annotated[int, Meta(gt=0)] = 1_000_000_000
    """A project's saved outputs together take at most this many bytes; the oldest go first."""
    output_file_max_bytes: Annotated[int, Meta(ge=4096)] = 10_000_000
    """One saved output keeps at most this many bytes: its head and its tail, saying what was left out between."""
