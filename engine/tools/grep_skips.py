"""What grep_files says when nothing matched: which of the files it was to search it left out, and why.

Both search backends pass over binary files (a NUL byte), files larger than
:data:`~engine.tools.search_backend.MAX_FILE_SIZE` and files they cannot open, without a word. When a
search finds nothing, "No matches" alone would claim those files were searched: the files are
looked at again, cheaply (their size, the first :data:`SNIFF_BYTES`), and the answer names the ones
left out. Only a search without matches pays for this, and it looks at :data:`CHECK_LIMIT` files
at most. A file whose first NUL byte lies after the first :data:`SNIFF_BYTES` is left out by the
backends but not named here: what is named is certain, not complete.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from engine.safe_read import describe_size, open_checked
from engine.tools.search_backend import MAX_FILE_SIZE

SNIFF_BYTES = 8192
"""Bytes read from each file to tell a binary one."""
CHECK_LIMIT = 20_000
"""Files looked at, at most, after a search without matches."""
NAMES_SHOWN = 5
"""Files named per reason; the others are counted."""


class Skipped(Struct, frozen=True):
    """The files left out of a search, by reason, relative to the search root, in search order."""

    binary: tuple[str, ...] = ()
    large: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()
    unchecked: int = 0
    """Files not looked at (over :data:`CHECK_LIMIT`)."""

    @property
    def paths(self) -> tuple[str, ...]:
        """Every file named, whatever the reason."""
        return self.binary + self.large + self.unreadable


def find_skipped(root: Path, files: Sequence[str]) -> Skipped:
    """Which of ``files`` (relative to ``root``) a search leaves out. Blocking: call it in a thread."""
    kinds: dict[str, list[str]] = {"binary": [], "large": [], "unreadable": []}
    root = root.resolve()
    for name in files[:CHECK_LIMIT]:
        reason = _why_left_out(root / name)
        if reason:
            kinds[reason].append(name)
    return Skipped(
        binary=tuple(kinds["binary"]),
        large=tuple(kinds["large"]),
        unreadable=tuple(kinds["unreadable"]),
        unchecked=max(0, len(files) - CHECK_LIMIT),
    )


def describe_skipped(skipped: Skipped, prefix: str, hidden: frozenset[str] = frozenset()) -> str:
    """`` Not searched: 2 binary files (a.png, b.bin), 1 file larger than 20 MiB (big.log).`` or ``""``.

    ``prefix`` goes before each name (the search root as the model sees it); names in ``hidden``
    (the read rules keep them back) are left out and not counted.
    """
    parts = []
    for names, what in (
        (skipped.binary, ("binary file", "binary files")),
        (
            skipped.large,
            (f"file larger than {describe_size(MAX_FILE_SIZE)}", f"files larger than {describe_size(MAX_FILE_SIZE)}"),
        ),
        (skipped.unreadable, ("file that could not be read", "files that could not be read")),
    ):
        shown = [prefix + name for name in names if prefix + name not in hidden]
        if shown:
            parts.append(f"{len(shown)} {what[len(shown) != 1]} ({_some(shown)})")
    if not parts:
        return ""
    text = " Not searched: " + ", ".join(parts) + "."
    if skipped.unchecked:
        text += f" ({skipped.unchecked} more files were not checked.)"
    return text


def _some(names: list[str]) -> str:
    listed = ", ".join(names[:NAMES_SHOWN])
    return listed + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")


def _why_left_out(path: Path) -> str:
    try:
        with open_checked(path, resolved=True) as handle:  # listed under a resolved root
            if os.fstat(handle.fileno()).st_size > MAX_FILE_SIZE:
                return "large"
            return "binary" if b"\0" in handle.read(SNIFF_BYTES) else ""
    except OSError:  # a FIFO, a device, no permission, gone
        return "unreadable"
