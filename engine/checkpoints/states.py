"""Reading what is at a path now, as a ``FileState``: keeping its bytes in the store, or only hashing them.

No link is followed: a link is recorded as a link. For the after-states and undo's checks a path
with a link among its folders is not there at all (:mod:`.nofollow` walks it folder by folder); the
before-states of a scan read only the last component without following, for speed (see
:func:`capture_state`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from engine.checkpoints import nofollow
from engine.checkpoints.store import CheckpointStore, FileState

_CHUNK = 1 << 20


def lstat_or_none(path: Path | str) -> os.stat_result | None:
    """What is at ``path`` itself, or None when nothing is there, it cannot be seen, or a folder on the way is a link."""
    try:
        return nofollow.lstat(str(path))
    except (OSError, nofollow.LinkOnPath):
        return None


def capture_state(path: Path | str, store: CheckpointStore, max_file_bytes: int) -> FileState | None:
    """What is at ``path`` now, a file's bytes kept in ``store`` (None: nothing is there).

    Only the last component is looked at without following: the paths come from a scan that
    followed no link a moment before (or from a path just resolved), and walking every folder again
    for each of thousands of files would double the cost of a first snapshot. Reading is harmless;
    what writes and removes (undo) walks the whole path.
    """
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return _other_state(path, st)
    if st.st_size > max_file_bytes:
        return FileState(kind="unrecorded", reason=f"larger than max_file_bytes ({max_file_bytes} bytes)")
    try:
        data = _read_regular(path, max_file_bytes)
    except OSError as exc:
        return FileState(kind="unrecorded", reason=f"it could not be read: {exc.strerror or exc}")
    if data is None:
        return FileState(
            kind="unrecorded",
            reason=f"it changed while it was read (now larger than {max_file_bytes} bytes, or not a regular file)",
        )
    return FileState(kind="file", blob=store.put_bytes(data), mode=stat.S_IMODE(st.st_mode))


def _read_regular(path: Path | str, limit: int) -> bytes | None:
    """The bytes of the regular file at ``path``; None when it was swapped for something else or outgrew ``limit``.

    Opened without blocking (a FIFO swapped in after the ``lstat`` must not hang the turn) and read
    no further than ``limit + 1`` bytes.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    with open(descriptor, "rb", buffering=0) as source:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        os.set_blocking(descriptor, True)
        data = source.read(limit + 1) or b""
    return data if len(data) <= limit else None


def after_state(path: Path | str, before: FileState | None, max_file_bytes: int) -> FileState | None:
    """What is at ``path`` at the end of a round, as :func:`current_state`, but never hashing a file for nothing.

    When the path's before-state was not kept and the file is now over ``max_file_bytes``, undo refuses
    the path whatever its bytes: the file is sized, not read (hashing 100 MB each round is what it saves).
    """
    if before is None or before.kind != "unrecorded":
        return current_state(path)
    st = lstat_or_none(path)
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_size <= max_file_bytes:
        return current_state(path)
    return FileState(
        kind="unrecorded",
        reason=f"not read: larger than max_file_bytes ({max_file_bytes} bytes), and its earlier state was not kept",
    )


def undo_notice(path: Path | str, shown: str, max_file_bytes: int) -> str | None:
    """The notice that a change to ``path`` cannot be undone (a file over ``max_file_bytes``), said before it runs."""
    st = lstat_or_none(path)
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_size <= max_file_bytes:
        return None
    return (
        f"this change cannot be undone: {shown} is {_size(st.st_size)}, over the checkpoint limit "
        "(checkpoints.max_file_bytes)"
    )


def _size(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def current_state(path: Path | str) -> FileState | None:
    """What is at ``path`` now, a file only hashed (None: nothing is there, or a folder on the way is a link)."""
    st = lstat_or_none(path)
    if st is None:
        return None
    if not stat.S_ISREG(st.st_mode):
        return _other_state(path, st)
    try:
        digest = hash_file(path)
    except (OSError, nofollow.LinkOnPath) as exc:
        return FileState(kind="unrecorded", reason=f"it could not be read: {_why(exc)}")
    return FileState(kind="file", blob=digest, mode=stat.S_IMODE(st.st_mode))


def hash_file(path: Path | str) -> str:
    """The sha256 of a file's bytes, read in chunks (never through a link; raises :class:`.nofollow.LinkOnPath`)."""
    digest = hashlib.sha256()
    with nofollow.open_file(str(path)) as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _other_state(path: Path | str, st: os.stat_result) -> FileState:
    if stat.S_ISDIR(st.st_mode):
        return FileState(kind="dir", mode=stat.S_IMODE(st.st_mode))
    if stat.S_ISLNK(st.st_mode):
        try:
            return FileState(kind="link", target=nofollow.read_link(str(path)))
        except (OSError, nofollow.LinkOnPath) as exc:
            return FileState(kind="unrecorded", reason=f"the link could not be read: {_why(exc)}")
    return FileState(kind="unrecorded", reason="it is not a regular file, folder or link")


def _why(exc: Exception) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
