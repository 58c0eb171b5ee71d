"""Which blobs each saved turn uses, remembered between prunings: a daily prune reads only the turns that are new.

A turn's digests are kept under its manifest file's stamp (size, modification time, inode): a turn
rewritten since (a command's changes joining it) is read again, and the entry of a turn that is gone is
dropped at the next save. Kept in the store's folder (0600, replaced whole); a missing or damaged file
reads as empty, so the worst it costs is reading every manifest once, as a prune without it does.
"""

from __future__ import annotations

import contextlib
import os

import msgspec

from engine.checkpoints.store import CheckpointStore, Manifest
from engine.private_files import replace_private_bytes
from engine.safe_read import read_bounded

USES_FILE = "blob-uses.msgpack"
MAX_USES_BYTES = 64 * 1024 * 1024
"""A larger file is not read (it was not written by hive): the manifests are read instead."""

Stamp = tuple[int, int, int]
"""A manifest file's size, modification time (ns) and inode."""


class _Remembered(msgspec.Struct, frozen=True, array_like=True):
    stamp: tuple[int, int, int]
    digests: tuple[str, ...]


_DECODER = msgspec.msgpack.Decoder(dict[str, _Remembered])


def stamp_of(info: os.stat_result) -> Stamp:
    """The stamp of a manifest file from its ``stat``."""
    return (info.st_size, info.st_mtime_ns, info.st_ino)


class BlobUses:
    """The blobs of each turn of ``store``: remembered when the manifest is unchanged, else read from it."""

    def __init__(self, store: CheckpointStore) -> None:
        self.store = store
        self.path = store.root / USES_FILE
        self._remembered = self._load()
        self._seen: dict[str, _Remembered] = {}
        self.read = 0
        """Manifests read (not remembered) so far."""

    def of(self, turn_id: str, stamp: Stamp) -> frozenset[str]:
        """The digests the turn ``turn_id`` (its manifest file stamped ``stamp``) uses."""
        known = self._remembered.get(turn_id)
        if known is None or known.stamp != stamp:
            self.read += 1
            known = _Remembered(stamp, tuple(sorted(_digests(self.store, turn_id))))
        self._seen[turn_id] = known
        return frozenset(known.digests)

    def save(self, kept: set[str]) -> None:
        """Remember the turns of ``kept`` seen by :meth:`of` (housekeeping: a failure only costs reading again)."""
        entries = {turn_id: entry for turn_id, entry in self._seen.items() if turn_id in kept}
        with contextlib.suppress(OSError):
            replace_private_bytes(self.path, msgspec.msgpack.encode(entries))

    def _load(self) -> dict[str, _Remembered]:
        try:
            return _DECODER.decode(read_bounded(self.path, limit=MAX_USES_BYTES))
        except (OSError, msgspec.DecodeError):
            return {}


def _digests(store: CheckpointStore, turn_id: str) -> frozenset[str]:
    record = store.read_record(f"{turn_id}.json")
    if not isinstance(record, Manifest):
        return frozenset()  # removed meanwhile, or damaged: it names no blob it can be trusted with
    states = (state for change in record.changes.values() for state in (change.before, change.after))
    return frozenset(state.blob for state in states if state is not None and state.blob)
