"""Reading what is at a path now, as a ``FileState``: keeping its bytes in the store, or only hashing them."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from engine.checkpoints.store import CheckpointStore, FileState

_CHUNK = 1 << 20


def lstat_or_none(path: Path | str) -> os.stat_result | None:
    """``os.lstat`` of ``path``, or None when nothing is there (or it cannot be seen)."""
    try:
        return os.lstat(path)
    except OSError:
        return None


def capture_state(path: Path | str, store: CheckpointStore, max_file_bytes: int) -> FileState | None:
    """What is at ``path`` now, a file's bytes kept in ``store`` (None: nothing is there)."""
    st = lstat_or_none(path)
    if st is None:
        return None
    if not stat.S_ISREG(st.st_mode):
        return _other_state(path, st)
    if st.st_size > max_file_bytes:
        return FileState(kind="unrecorded", reason=f"larger than max_file_bytes ({max_file_bytes} bytes)")
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return FileState(kind="unrecorded", reason=f"it could not be read: {exc.strerror or exc}")
    return FileState(kind="file", blob=store.put_bytes(data), mode=stat.S_IMODE(st.st_mode))


def current_state(path: Path | str) -> FileState | None:
    """What is at ``path`` now, a file only hashed (None: nothing is there)."""
    st = lstat_or_none(path)
    if st is None:
        return None
    if not stat.S_ISREG(st.st_mode):
        return _other_state(path, st)
    try:
        digest = hash_file(path)
    except OSError as exc:
        return FileState(kind="unrecorded", reason=f"it could not be read: {exc.strerror or exc}")
    return FileState(kind="file", blob=digest, mode=stat.S_IMODE(st.st_mode))


def hash_file(path: Path | str) -> str:
    """The sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _other_state(path: Path | str, st: os.stat_result) -> FileState:
    if stat.S_ISDIR(st.st_mode):
        return FileState(kind="dir", mode=stat.S_IMODE(st.st_mode))
    if stat.S_ISLNK(st.st_mode):
        try:
            return FileState(kind="link", target=os.readlink(path))
        except OSError as exc:
            return FileState(kind="unrecorded", reason=f"the link could not be read: {exc.strerror or exc}")
    return FileState(kind="unrecorded", reason="it is not a regular file, folder or link")
