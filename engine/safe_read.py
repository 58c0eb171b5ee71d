"""THE reader for files hive reads on its own, and the opener of the files its tools read.

A project hive may not trust can name a FIFO, ``/dev/zero``, a 2 GB sparse file or a link out of
the project (to ``/proc/self/environ``, to the shell history) where a configuration, instruction,
ignore or skill file is expected, and a model can name one to read_file. Nothing here blocks on
such a file or reads more than its bound: the path is resolved (and refused when it leaves the
folder given as ``within``), only a regular file outside ``/proc``, ``/sys`` and ``/dev`` is opened,
without following a link swapped in after resolving. :func:`read_bounded` reads a whole file of at
most ``limit`` bytes, :func:`read_head` the first ``limit`` bytes of any, and :func:`open_checked`
hands the opened file to a reader that bounds itself (read_file's window, grep's lines).
tests/engine/test_direct_reads.py keeps these the only way ``engine/`` opens a file to read it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO, NamedTuple

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 64 * 1024
_SYSTEM_FOLDERS = frozenset({"/proc", "/sys", "/dev"})
"""Kernel and device folders: a file there is hive's own state (``/proc/self/environ``), never a project's."""
_LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK})
"""What ``open`` says of a link under ``O_NOFOLLOW`` (Linux: ELOOP; the BSDs: EMLINK)."""


class UnsafeFile(OSError):
    """hive refused to read a file; ``str(error)`` (and ``reason``) says why, e.g. "is a FIFO, not a regular file".

    It is an ``OSError`` so that a caller that already handles unreadable files handles it too;
    :func:`read_bounded` raises it for every refusal, and a plain ``OSError`` only when the system
    fails (a missing file, no permission).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


class TooLarge(UnsafeFile):
    """The file holds more than the limit."""


def read_bounded(path: Path, *, limit: int, within: Path | None = None, resolved: bool = False) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``), read without blocking or following a late link.

    ``within``: refuse a path that resolves outside this folder (a link out of the project);
    ``resolved``: see :func:`open_checked`. Raises :class:`UnsafeFile` when hive refuses the file
    (:class:`TooLarge` when it holds more than ``limit`` bytes) and ``OSError`` when it cannot be read.
    """
    with open_checked(path, within=within, resolved=resolved) as file:
        if os.fstat(file.fileno()).st_size > limit:
            raise TooLarge(f"is larger than {describe_size(limit)}")
        data = _read_at_most(file.fileno(), limit + 1)
    if len(data) > limit:  # the size it reported was wrong (a file still growing, a special file system)
        raise TooLarge(f"is larger than {describe_size(limit)}")
    return data


class Head(NamedTuple):
    """The start of a file, as :func:`read_head` read it."""

    data: bytes
    cut: bool
    """True when more bytes follow ``data``."""
    size: int
    """The file's size as the file system reports it."""


def read_head(path: Path, *, limit: int, within: Path | None = None) -> Head:
    """The first ``limit`` bytes of the regular file ``path``, and whether more follow; never reads more.

    The checks are :func:`read_bounded`'s; a larger file is cut instead of refused (for files hive
    shows in part, such as instruction files, with a note that they were truncated).
    """
    with open_checked(path, within=within) as file:
        size = os.fstat(file.fileno()).st_size
        data = _read_at_most(file.fileno(), limit + 1)
    return Head(data[:limit], len(data) > limit, max(size, len(data)))


def open_checked(path: Path, *, within: Path | None = None, resolved: bool = False) -> BinaryIO:
    """``path`` opened for reading (binary, buffered) once hive has judged it safe to read; the caller bounds the reading.

    The path is resolved (``within``: refused when that leads outside the folder), refused unless it
    is a regular file, before it is opened (opening a device or a FIFO can act or block) and again
    after, refused when it lies under ``/proc``, ``/sys`` or ``/dev`` (files there hold hive's own
    environment and memory), and opened without blocking and without following a link swapped in
    after resolving. ``resolved``: the caller resolved ``path`` already (it comes from a listing of
    a resolved folder) and it is not resolved again; a link in its last component is still refused.
    Raises :class:`UnsafeFile` for a refusal and ``OSError`` when the file cannot be opened.
    """
    real = path if resolved else Path(os.path.realpath(path))
    if within is not None and not real.is_relative_to(os.path.realpath(within)):
        raise UnsafeFile(f"leads to {real}, outside {within}")
    _check_regular(os.stat(real, follow_symlinks=False).st_mode)  # before open: opening a device can act
    _check_not_system(real)
    try:
        descriptor = os.open(real, _OPEN_FLAGS)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS:
            raise UnsafeFile("is a link that could not be followed safely (a loop, or it changed)") from None
        raise
    try:
        _check_regular(os.fstat(descriptor).st_mode)
        os.set_blocking(descriptor, True)  # a regular file never blocks; buffered reads expect a blocking descriptor
    except BaseException:
        os.close(descriptor)
        raise
    return os.fdopen(descriptor, "rb")


def describe_size(size: int) -> str:
    """``256 KiB``, ``1 MiB`` or ``1000 bytes``."""
    for unit, factor in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} bytes"


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise UnsafeFile(f"is {_kind(mode)}, not a regular file")


def _check_not_system(real: Path) -> None:
    if real.parts[1:2] and f"/{real.parts[1]}" in _SYSTEM_FOLDERS:
        raise UnsafeFile(f"leads to {real}, under /{real.parts[1]}, where no project file lives")


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a link"),
    )
    return next((name for test, name in kinds if test(mode)), "a special file")


def _read_at_most(descriptor: int, count: int) -> bytes:
    chunks: list[bytes] = []
    remaining = count
    while remaining > 0:
        chunk = os.read(descriptor, min(remaining, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
