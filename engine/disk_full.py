"""A full disk (or quota, or a read-only file system) where hive writes: one message naming the folder and
what was kept, instead of an internal error.

Writers of hive's own files wrap a write in :func:`writing`, which turns such an ``OSError`` into
:class:`DiskFull` (exit status 1: the run failed while working; freeing space and running again helps).
:func:`describe_full` names the folder of any other such error that carries its file's name.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.errors import RunError

_REASONS = {
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
}


class DiskFull(RunError):
    """A write of hive's own files failed for want of space (or a read-only file system); names what was kept."""

    def __init__(self, reason: str, what: str, folder: Path, kept: str) -> None:
        super().__init__(f"{reason} writing {what} in {folder}; {kept}")
        self.folder = folder


def full_reason(error: BaseException) -> str | None:
    """ "no space left on device" (or the quota's, the read-only file system's) for such an error, else None."""
    return _REASONS.get(error.errno) if isinstance(error, OSError) and error.errno is not None else None


@contextmanager
def writing(what: str, folder: Path, kept: str) -> Iterator[None]:
    """Turn a full disk while the body writes ``what`` in ``folder`` into :class:`DiskFull` saying ``kept``."""
    try:
        yield
    except OSError as error:
        reason = full_reason(error)
        if reason is None:
            raise
        raise DiskFull(reason, what, folder, kept) from error


def describe_full(error: BaseException) -> str | None:
    """The one-line message for a full disk met anywhere else (None when ``error`` is not one)."""
    reason = full_reason(error)
    if reason is None:
        return None
    name = getattr(error, "filename", None)
    if not isinstance(name, str | bytes) or not name:
        return f"{reason} writing hive's files; free some space and run again"
    path = Path(name.decode(errors="replace") if isinstance(name, bytes) else name)
    return f"{reason} writing {path.name} in {path.parent}; free some space and run again"
