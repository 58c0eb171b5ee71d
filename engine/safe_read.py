"""THE reader for files hive reads on its own: configuration, command, agent and skill files.

A project hive may not trust can name a FIFO, ``/dev/zero``, a 2 GB sparse file or a link out of
the project where a configuration file is expected. :func:`read_bounded` never blocks on such a file
and never reads more than its limit: the path is resolved, the resolved path opened without
following a link (one swapped in after resolving is refused), only a regular file is read, and at
most ``limit + 1`` bytes of it. Files a tool reads at the model's request go through the tools' own
readers, not this one.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 64 * 1024
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


def read_bounded(path: Path, *, limit: int, within: Path | None = None) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``), read without blocking or following a late link.

    ``within``: refuse a path that resolves outside this folder (a link out of the project).
    Raises :class:`UnsafeFile` when hive refuses the file and ``OSError`` when it cannot be read.
    """
    resolved = Path(os.path.realpath(path))
    if within is not None and not resolved.is_relative_to(os.path.realpath(within)):
        raise UnsafeFile(f"leads to {resolved}, outside {within}")
    _check_regular(os.stat(resolved, follow_symlinks=False).st_mode)  # before open: opening a device can act
    try:
        descriptor = os.open(resolved, _OPEN_FLAGS)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS:
            raise UnsafeFile("is a link that could not be followed safely (a loop, or it changed)") from None
        raise
    with os.fdopen(descriptor, "rb", buffering=0) as file:
        status = os.fstat(file.fileno())
        _check_regular(status.st_mode)
        if status.st_size > limit:
            raise TooLarge(f"is larger than {describe_size(limit)}")
        data = _read_at_most(file.fileno(), limit + 1)
    if len(data) > limit:  # the size it reported was wrong (a file still growing, a special file system)
        raise TooLarge(f"is larger than {describe_size(limit)}")
    return data


def describe_size(size: int) -> str:
    """``256 KiB``, ``1 MiB`` or ``1000 bytes``."""
    for unit, factor in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} bytes"


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise UnsafeFile(f"is {_kind(mode)}, not a regular file")


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
