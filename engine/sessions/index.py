"""The sessions index: which sessions were used last, known without listing the sessions folder.

Listing the folder and asking each file its time costs as much as there are sessions. So each time
a session is made, reopened, closed, forked or imported, one short JSON line ``{"id","cwd","t"}`` is
appended to ``_index.log`` in the folder (a name that is no ``*.jsonl`` and no session id: ids begin
with a letter or a digit). The latest sessions are read from its end backwards (:class:`NewestFirst`),
so a listing costs what it shows, not what is kept.

An append is one ``write`` on an ``O_APPEND`` descriptor holding the index's ``flock``; a compaction
holds it too while it reads the index and renames a whole new one over it, and an appender that
waited checks, once it holds the lock, that its file is still the index (else it opens the new one).
So no append is lost to a compaction.

An index that exists was built from the whole folder (:func:`build`, when a listing finds none or
cannot read it) and kept up since: with no index nothing is appended (nor made), and an append that
fails removes the index, so the next listing builds it again rather than miss a session. Past each
``COMPACT_AT`` bytes it is rewritten with the newest line of each session whose file is still
there; pruning compacts it too (:func:`compact`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import stat
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

import msgspec

from engine.private_files import open_private_bytes, replace_private_bytes
from engine.safe_read import open_checked, read_bounded
from engine.sessions.info import SESSION_ID, session_file

INDEX_NAME = "_index.log"
COMPACT_AT = 1024 * 1024
"""Each time the index grows past a multiple of this many bytes, it is compacted."""
MAX_CWD = 2048
"""A longer folder is written as "" (a line that matches every folder: the session's header decides)."""
_CHUNK = 64 * 1024
_FIRST_CHUNK = 4 * 1024
_MAX_INDEX = 64 * 1024 * 1024
"""The most a compaction reads; a larger index (damage) is removed and built again by the next listing."""


class IndexLine(msgspec.Struct, frozen=True):
    """One use of a session: its id, the folder it was started in, when (seconds since the epoch)."""

    id: str
    cwd: str
    t: float


_encode = msgspec.json.Encoder().encode
_decoder = msgspec.json.Decoder(IndexLine)


def index_path(root: Path) -> Path:
    """The index file of the sessions folder ``root``."""
    return root / INDEX_NAME


def record(root: Path, session_id: str, cwd: str) -> None:
    """Note that ``session_id`` (started in ``cwd``) was used now; nothing when there is no index yet.

    Housekeeping: a failure is not the session's; the index is removed then (built again when next listed).
    """
    line = encoded(IndexLine(id=session_id, cwd=cwd if len(cwd) <= MAX_CWD else "", t=time.time()))
    try:
        with held(root) as descriptor:
            if descriptor is None:
                return
            if os.write(descriptor, line) != len(line):
                raise OSError(f"{index_path(root)}: the line was written in part")
            size = os.fstat(descriptor).st_size
            if (size - len(line)) // COMPACT_AT < size // COMPACT_AT:
                compact_held(root)
    except OSError:
        with contextlib.suppress(OSError):
            index_path(root).unlink()


def encoded(entry: IndexLine) -> bytes:
    """The index line of ``entry``, its newline included."""
    return _encode(entry) + b"\n"


def build(root: Path, entries: Iterable[IndexLine]) -> bool:
    """Make the index of ``root`` from ``entries`` (the oldest used first), unless there is one; whether this did.

    It is written whole beside, then linked in place (never over an index another process made
    meanwhile). A session made while the folder was being read found no index to append to: the
    caller lists the folder's names again after a True, and :func:`record` s those it had not read.
    ``OSError`` when it cannot be written.
    """
    path = index_path(root)
    if os.path.lexists(path):
        reader = open_newest(root)
        if reader is not None:
            reader.close()
            return False
        path.unlink()  # damaged (not a regular file, unreadable): made again
    partial = root / f".{INDEX_NAME}.{secrets.token_hex(4)}.tmp"
    try:
        with open_private_bytes(partial, "x") as out:
            out.write(b"".join(encoded(entry) for entry in entries))
        os.link(partial, path)
    except FileExistsError:
        return False
    finally:
        partial.unlink(missing_ok=True)
    return True


def compact(root: Path) -> None:
    """Rewrite the index with the newest line of each session whose file is still there (nothing without one)."""
    with held(root) as descriptor:
        if descriptor is not None:
            compact_held(root)


@contextlib.contextmanager
def held(root: Path) -> Iterator[int | None]:
    """The index opened for appending and locked (``flock``); None when there is none.

    A compaction replaces the file while holding the old one's lock: once locked, the descriptor is
    checked against the name, and the new file opened when they differ.
    """
    path = index_path(root)
    while True:
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            yield None
            return
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            if _is_named(descriptor, path):
                break
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _is_named(descriptor: int, path: Path) -> bool:
    """Whether the regular file open as ``descriptor`` is the one ``path`` names now (``OSError`` when not regular)."""
    opened = os.fstat(descriptor)
    if not stat.S_ISREG(opened.st_mode):
        raise OSError(f"{path} is not a regular file")
    try:
        named = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def compact_held(root: Path) -> None:
    """:func:`compact`, its caller holding the index's lock (:func:`held`)."""
    path = index_path(root)
    try:
        data = read_bounded(path, limit=_MAX_INDEX)
    except OSError:  # too large: the next listing builds it from the folder
        path.unlink(missing_ok=True)
        return
    newest: dict[str, IndexLine] = {}
    for line in data.split(b"\n"):
        entry = _entry(line)
        if entry is not None:
            newest.pop(entry.id, None)  # kept in the order of each id's last line
            newest[entry.id] = entry
    kept = [entry for entry in newest.values() if _exists(session_file(root, entry.id))]
    replace_private_bytes(path, b"".join(encoded(entry) for entry in kept))


def _exists(path: Path) -> bool:
    try:
        os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return True


def _entry(line: bytes) -> IndexLine | None:
    """The index line ``line`` decoded; None when it is damaged or names no session id."""
    try:
        entry = _decoder.decode(line)
    except msgspec.DecodeError:
        return None
    return entry if SESSION_ID.fullmatch(entry.id) else None


def open_newest(root: Path) -> NewestFirst | None:
    """The index of ``root`` opened for reading from its end; None when it is missing or cannot be read."""
    try:
        return NewestFirst(open_checked(index_path(root)))
    except OSError:
        return None


class NewestFirst:
    """Reads an index from its end: the ids of the sessions used last first, each once.

    ``ended`` turns true once the whole index was read.
    """

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self.ended = False

    def __enter__(self) -> NewestFirst:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the index file."""
        self._file.close()

    def ids(self, cwd: str | None = None) -> Iterator[str]:
        """The ids of the sessions started in ``cwd`` (every one when None; "" lines match every folder), newest first."""
        needles = None if cwd is None else (_cwd_needle(cwd), _cwd_needle(""))
        seen: set[str] = set()
        for line in self._lines():
            if needles is not None and needles[0] not in line and needles[1] not in line:
                continue  # cheaper than decoding it: most lines are of other folders
            entry = _entry(line)
            if entry is None or entry.id in seen or (cwd is not None and entry.cwd not in (cwd, "")):
                continue
            seen.add(entry.id)
            yield entry.id

    def _lines(self) -> Iterator[bytes]:
        """The lines of the index, the last first (read in chunks from the end)."""
        end = os.fstat(self._file.fileno()).st_size
        carry = b""
        chunk = _FIRST_CHUNK  # the latest few lines are most often all a listing needs: read more only then
        while end > 0:
            start = max(0, end - chunk)
            self._file.seek(start)
            pieces = (self._file.read(end - start) + carry).split(b"\n")
            end, chunk = start, min(2 * chunk, _CHUNK)
            carry = pieces[0] if len(pieces[0]) <= _CHUNK else b""  # a line that long is damage: dropped
            yield from reversed(pieces[1:])
        yield carry
        self.ended = True


def _cwd_needle(cwd: str) -> bytes:
    """How ``cwd`` appears in an index line (msgspec writes no spaces: ``"cwd":"/the/folder",``)."""
    return b'"cwd":' + _encode(cwd) + b","
