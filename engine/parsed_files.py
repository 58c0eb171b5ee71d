"""What hive reads out of a file, kept while the file stays as it was: parsed once, not on every look.

Command, skill and agent files are listed again whenever the REPL shows ``/help``, completes a name or
runs one; a year's worth of them made that cost grow with the pile. A :class:`ParsedFiles` keeps each
file's result (or the error it raised) under the file's stamp: size, modification and change times and
inode, of the name itself and, for a symbolic link, of what it points to. Any write changes the change
time, which no program can set back, so a changed file is always parsed again. Only stat calls are made
for a file already parsed.

A file changed in the same clock tick as its parse can keep its stamp: with ``settle_ns`` a result is
trusted only once its file had last changed that long before the parse; a younger one is parsed again.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")
Stamp = tuple[int, ...]

_STAMP_LENGTH = 5
"""Numbers in a stamp for each stat: size, modification and change times, inode, device."""
MAX_KEPT = 20_000
"""Results one cache keeps at most (the oldest go first)."""


class ParsedFiles(Generic[T]):
    """Results of parsing files, by key, each valid while its file's stamp is unchanged."""

    def __init__(self, limit: int = MAX_KEPT, settle_ns: int = 0) -> None:
        self.limit = limit
        self.settle_ns = settle_ns
        """A result whose file changed less than this before its parse is not kept (0: every result is)."""
        self._kept: dict[Hashable, tuple[Stamp, T | None, Exception | None]] = {}

    def get(self, key: Hashable, path: Path, parse: Callable[[], T]) -> T:
        """``parse()``'s result for ``path`` under ``key``: the kept one when the file is unchanged.

        An exception ``parse`` raised is kept too, and raised again for the unchanged file.
        """
        stamp = file_stamp(path)
        if stamp is None:  # gone or unreadable: parse says what is wrong, and nothing is kept
            return parse()
        kept = self._kept.get(key)
        if kept is None or kept[0] != stamp:
            kept = self._parse(key, stamp, parse)
        _, value, error = kept
        if error is not None:
            raise error.with_traceback(None)
        return value  # type: ignore[return-value]  # kept without an error: parse returned it

    def _parse(self, key: Hashable, stamp: Stamp, parse: Callable[[], T]) -> tuple[Stamp, T | None, Exception | None]:
        started = time.time_ns()
        try:
            kept: tuple[Stamp, T | None, Exception | None] = (stamp, parse(), None)
        except Exception as error:
            kept = (stamp, None, error)
        self._kept.pop(key, None)
        if self.settle_ns and max(stamp[1::_STAMP_LENGTH]) >= started - self.settle_ns:
            return kept  # too young to trust its stamp: parsed again at the next look
        if len(self._kept) >= self.limit:
            del self._kept[next(iter(self._kept))]
        self._kept[key] = kept
        return kept


def file_stamp(path: Path) -> Stamp | None:
    """What changes whenever ``path`` (or, for a link, the file it names) is written, moved or replaced."""
    try:
        own = os.lstat(path)
        stamps = [own]
        if stat.S_ISLNK(own.st_mode):
            stamps.append(os.stat(path))
    except OSError:
        return None
    return tuple(n for s in stamps for n in (s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino, s.st_dev))
