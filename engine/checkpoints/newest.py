"""The newest turn records' names, noted beside the store: a listing or an undo reads no folder that did not change.

Turn ids begin with their time, so the newest turns are the last names of the turns folder. Listing a
folder of thousands of records costs as much as it holds; instead the newest :data:`KEPT` names and the
count are noted with the folder's stamp, and used while the stamp is unchanged (a record saved, removed
or renamed by any hive changes it). As with :mod:`engine.folder_stamps`, a note is trusted only when the
folder had last changed :data:`~engine.folder_stamps.SETTLE_NS` before it was taken: a change in the same
clock tick could otherwise leave the stamp as it was, and undo must never miss the newest turn.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from engine.folder_stamps import SETTLE_NS, folder_stamp
from engine.private_files import replace_private_bytes
from engine.safe_read import read_bounded

KEPT = 64
"""Names noted: more than ``hive checkpoints list`` shows (20) and than undo usually passes."""
NOTE_FILE = "newest-turns.msgpack"
_MAX_NOTE_BYTES = 1024 * 1024


class _Note(msgspec.Struct, frozen=True, array_like=True):
    stamp: tuple[int, ...]
    count: int
    names: tuple[str, ...]


class Newest(msgspec.Struct, frozen=True):
    """The newest names (all of them when ``complete``), newest first, and how many records there are."""

    names: tuple[str, ...]
    count: int

    @property
    def complete(self) -> bool:
        """Whether :attr:`names` holds every record's name."""
        return len(self.names) >= self.count


def newest(turns: Path, listed: Callable[[], list[str]]) -> Newest:
    """The newest record names of the folder ``turns``: as noted while it did not change, else ``listed()`` (all
    names, newest first), noted for the next look."""
    stamp = folder_stamp(turns)
    note_path = turns.parent / NOTE_FILE
    if stamp is not None:
        noted = _read(note_path)
        if noted is not None and noted.stamp == stamp:
            return Newest(names=noted.names, count=noted.count)
    names = listed()
    if stamp is not None and stamp[0] < time.time_ns() - SETTLE_NS and folder_stamp(turns) == stamp:
        with contextlib.suppress(OSError):  # a note not kept costs the next look a listing
            note = _Note(stamp=stamp, count=len(names), names=tuple(names[:KEPT]))
            replace_private_bytes(note_path, msgspec.msgpack.encode(note))
    return Newest(names=tuple(names), count=len(names))


def _read(path: Path) -> _Note | None:
    try:
        return msgspec.msgpack.decode(read_bounded(path, limit=_MAX_NOTE_BYTES), type=_Note)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
