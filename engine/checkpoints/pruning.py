"""Keeping a project's checkpoint store small: turns over the age, count or size cap go, the oldest first.

Turn ids begin with their creation time, so age and count are judged by name; sizes come from
``stat``. Which blobs each kept turn uses is read from its manifest once and then remembered under the
manifest file's stamp (:mod:`engine.checkpoints.blob_uses`), so a prune reads only the turns saved since
the last one: a blob no kept turn uses goes once
it is older than the age cap, or, when a removed turn used it, once it is a day old (younger ones may
belong to a turn still being recorded by a hive at work). A turn still open in a live hive is never
removed. At a session's start this runs at most once a day (:func:`prune_daily`); ``hive checkpoints
prune`` runs it now.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from msgspec import Struct

from engine.checkpoints.blob_uses import BlobUses, Stamp, stamp_of
from engine.checkpoints.open_turns import is_live
from engine.checkpoints.options import CheckpointOptions
from engine.checkpoints.store import CheckpointStore
from engine.stores.caps import Caps, Entry, Verdict, choose
from engine.stores.options import DAY
from engine.stores.stamp import claim_daily

_UNBOUNDED = 2**62


class Blob(Struct, frozen=True):
    """A kept copy: its digest, size and when it was written."""

    digest: str
    size: int
    written: float


class CheckpointVerdict(Struct, frozen=True, kw_only=True):
    """The turns removed and kept, the blobs removed, and the bytes the store keeps."""

    turns: Verdict
    blobs_removed: tuple[Blob, ...]
    kept_bytes: int

    @property
    def freed(self) -> int:
        """The bytes the removed turns and blobs took."""
        return self.turns.freed + sum(blob.size for blob in self.blobs_removed)


def checkpoint_caps(options: CheckpointOptions) -> Caps:
    """The caps of the ``checkpoints`` settings."""
    return Caps(keep_days=options.keep_days, max_count=options.max_count, max_bytes=options.max_bytes)


def prune_daily(store: CheckpointStore, options: CheckpointOptions) -> CheckpointVerdict | None:
    """:func:`prune_checkpoints` when the store was not pruned in the last day; None when it was."""
    if not claim_daily(f"checkpoints-{store.root.name}"):
        return None
    return prune_checkpoints(store, checkpoint_caps(options))


def prune_checkpoints(
    store: CheckpointStore, caps: Caps, *, dry_run: bool = False, now: float | None = None
) -> CheckpointVerdict:
    """Remove the turns over ``caps`` and the blobs no kept turn uses (nothing with ``dry_run``)."""
    moment = time.time() if now is None else now
    entries, stamps = turn_entries(store)
    unsized = Caps(keep_days=caps.keep_days, max_count=caps.max_count, max_bytes=_UNBOUNDED)
    by_name = choose(entries, unsized, moment, _live(store))
    remembered = BlobUses(store)
    uses = {entry.name: remembered.of(entry.name, stamps[entry.name]) for entry in entries}
    counts = Counter(digest for entry in by_name.kept for digest in uses[entry.name])
    blobs = blob_entries(store)
    sizing = _Sizing(store, caps, moment, uses, counts, blobs)
    turns = sizing.shrink(by_name)
    freed = {digest for entry in turns.removed for digest in uses[entry.name]}
    dropped = tuple(blob for blob in blobs.values() if sizing.removable(blob, freed))
    if not dry_run:
        _remove(store, turns.removed, dropped)
        remembered.save({entry.name for entry in turns.kept})
    kept_bytes = sum(entry.size for entry in turns.kept) + sum(
        blob.size for blob in blobs.values() if blob not in dropped
    )
    return CheckpointVerdict(turns=turns, blobs_removed=dropped, kept_bytes=kept_bytes)


class _Sizing:
    """The size pass: the oldest kept turns go while the store (turns and the blobs left) is over its size cap."""

    def __init__(
        self,
        store: CheckpointStore,
        caps: Caps,
        now: float,
        uses: dict[str, frozenset[str]],
        counts: Counter[str],
        blobs: dict[str, Blob],
    ) -> None:
        self.caps, self.uses, self.counts, self.blobs = caps, uses, counts, blobs
        self.cutoff, self.stale = now - caps.keep_days * DAY, now - DAY
        self.live = _live(store)

    def removable(self, blob: Blob, freed: set[str]) -> bool:
        """Whether no kept turn uses ``blob`` and it is old enough to go."""
        if self.counts[blob.digest] > 0:
            return False
        return blob.written < self.cutoff or (blob.digest in freed and blob.written < self.stale)

    def shrink(self, verdict: Verdict) -> Verdict:
        """``verdict`` with the oldest kept turns moved to the removed ones until the store is within its size cap."""
        removed, kept = list(verdict.removed), list(verdict.kept)
        freed = {digest for entry in removed for digest in self.uses[entry.name]}
        gone = {blob.digest for blob in self.blobs.values() if self.removable(blob, freed)}
        total = sum(entry.size for entry in kept)
        total += sum(blob.size for blob in self.blobs.values() if blob.digest not in gone)
        for entry in list(kept):
            if total <= self.caps.max_bytes:
                break
            if self.live(entry):
                continue
            kept.remove(entry)
            removed.append(entry)
            total -= entry.size + self._release(entry, freed, gone)
        return Verdict(removed=tuple(removed), kept=tuple(kept), protected=verdict.protected)

    def _release(self, entry: Entry, freed: set[str], gone: set[str]) -> int:
        """The turn ``entry`` no longer uses its blobs: the bytes of those that can go now."""
        self.counts.subtract(self.uses[entry.name])
        freed |= self.uses[entry.name]
        released = 0
        for digest in self.uses[entry.name]:
            blob = self.blobs.get(digest)
            if blob is not None and digest not in gone and self.removable(blob, freed):
                gone.add(digest)
                released += blob.size
        return released


def turn_entries(store: CheckpointStore) -> tuple[list[Entry], dict[str, Stamp]]:
    """Every turn's record (its id, when it was made, from the id, and its size) and its file's stamp, by ``stat``."""
    entries = []
    stamps: dict[str, Stamp] = {}
    for item in _scan(store.turns):
        turn_id = item.name.removesuffix(".json")
        if item.name.startswith(".") or not item.name.endswith(".json"):
            continue
        with contextlib.suppress(OSError):
            info = item.stat(follow_symlinks=False)
            entries.append(Entry(name=turn_id, used=_made(turn_id, info.st_mtime), size=info.st_size))
            stamps[turn_id] = stamp_of(info)
    return entries, stamps


def blob_entries(store: CheckpointStore) -> dict[str, Blob]:
    """Every kept copy, by digest, with its size and when it was written (from ``stat``)."""
    blobs = {}
    for folder in _scan(store.objects):
        for item in _scan(Path(folder.path)) if len(folder.name) == 2 else ():
            if item.name.startswith("."):
                continue
            with contextlib.suppress(OSError):
                info = item.stat(follow_symlinks=False)
                blobs[folder.name + item.name] = Blob(folder.name + item.name, info.st_size, info.st_mtime)
    return blobs


def _made(turn_id: str, fallback: float) -> float:
    stamp = turn_id.split("-", 1)[0]
    return int(stamp) / 1e9 if stamp.isdigit() and len(stamp) == 20 else fallback


def _live(store: CheckpointStore) -> Callable[[Entry], bool]:
    return lambda entry: is_live(store, entry.name)


def _remove(store: CheckpointStore, turns: tuple[Entry, ...], blobs: tuple[Blob, ...]) -> None:
    for entry in turns:
        store.discard(entry.name)
    for blob in blobs:
        with contextlib.suppress(OSError):
            store.blob_path(blob.digest).unlink()


def _scan(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return list(found)
    except OSError:
        return []
