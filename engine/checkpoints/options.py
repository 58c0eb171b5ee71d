"""The ``checkpoints`` section of the settings."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from engine.config.validation import StrictRecord


class CheckpointOptions(StrictRecord, frozen=True):
    """Snapshots of the files a tool call may change, kept for undo."""

    enabled: bool = True
    """Keep checkpoints, so ``hive undo`` and ``/undo`` can revert a turn."""
    max_file_bytes: Annotated[int, Meta(gt=0)] = 10_000_000
    """Files larger than this are not snapshotted (undo then refuses for them)."""
    keep_days: Annotated[int, Meta(gt=0)] = 30
    """Checkpoints older than this are removed (at most once a day, at a session's start)."""
    max_count: Annotated[int, Meta(gt=0)] = 5_000
    """At most this many turns are kept for a project; the oldest go first."""
    max_bytes: Annotated[int, Meta(gt=0)] = 2_000_000_000
    """A project's checkpoints (records and kept copies) take at most this many bytes; the oldest turns go first."""
