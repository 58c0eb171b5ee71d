"""What edit_file's two paths share: how old_string is matched (line endings adapted) and how lines are shown."""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct

SNIPPET_CONTEXT = 3
"""Unchanged lines shown around an edit."""
MAX_SHOWN_LINES = 30
"""Lines of a snippet or of the closest region shown at most."""


class Replacement(Struct, frozen=True):
    """The text to look for and the text to put in its place, as the file spells its line endings."""

    old: str
    new: str
    note: str = ""


class LineEndings(Struct, frozen=True):
    """How a file ends its lines: ``crlf`` counts ``\\r\\n``, ``lf`` every ``\\n`` (those of ``\\r\\n`` too)."""

    lf: int
    crlf: int

    @property
    def has_crlf(self) -> bool:
        return self.crlf > 0

    @property
    def only_crlf(self) -> bool:
        """Every line end is CRLF (and there is at least one)."""
        return self.crlf > 0 and self.lf == self.crlf


def locate(contains: Callable[[str], bool], endings: LineEndings, old: str, new: str) -> Replacement | None:
    """The strings to replace with, adapting the line endings when only they differ from the file's."""
    if contains(old):
        return Replacement(old, to_crlf(new) if endings.only_crlf else new)
    if endings.has_crlf and "\n" in old and "\r\n" not in old:
        crlf_old = old.replace("\n", "\r\n")
        if contains(crlf_old):
            return Replacement(crlf_old, to_crlf(new), " (matched after converting line endings to the file's CRLF)")
    if not endings.has_crlf and "\r\n" in old:
        lf_old = old.replace("\r\n", "\n")
        if contains(lf_old):
            return Replacement(lf_old, new.replace("\r\n", "\n"), " (matched after converting CRLF line endings to LF)")
    return None


def to_crlf(text: str) -> str:
    """``text`` with every line ending CRLF."""
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def snippet_bounds(first_changed: int, last_changed: int, line_count: int) -> tuple[int, int]:
    """The first and last line (1-based, inclusive) of the excerpt shown after an edit."""
    start = max(1, first_changed - SNIPPET_CONTEXT)
    return start, min(line_count, last_changed + SNIPPET_CONTEXT, start + MAX_SHOWN_LINES - 1)


def numbered(lines: list[str], start: int, end: int, first_number: int = 1) -> str:
    """Lines numbered ``start``..``end`` (inclusive) in read_file's format; ``lines[0]`` is line ``first_number``."""
    return "\n".join(f"{n:>6}\t" + lines[n - first_number].removesuffix("\r") for n in range(start, end + 1))
