"""read_file's window: the numbered lines it returns, read from the open file and never much more of it.

A file can be a sparse gigabyte, or one line of a gigabyte. Lines are read one at a time and at
most :data:`LINE_BYTES` of each is kept (the rest is counted while it is skipped, never held); the
reading stops after the window once it is known that more follows. Only a file of at most
:data:`COUNT_UP_TO` bytes is read to its end, so that the note can give its number of lines and
every line is checked to be UTF-8, as a small file costs nothing to count. In a larger file the lines
before the window are only counted, a chunk at a time (:func:`_skip_lines`), never read one by one.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from typing import BinaryIO

from msgspec import Struct

MAX_LINE_CHARS = 2000
"""Longer lines are cut to this many characters."""
READ_OUTPUT_BUDGET = 256 * 1024
"""Characters read_file returns at most; a window that would be larger stops early."""
LINE_BYTES = 4 * MAX_LINE_CHARS + 4
"""Bytes of one line kept at most: enough for :data:`MAX_LINE_CHARS` characters of UTF-8 and the line end."""
COUNT_UP_TO = 2 * 1024 * 1024
"""Files up to this many bytes are read to the end to count their lines; larger ones only to the window's end."""
_SKIP_CHUNK = 64 * 1024
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


class Window(Struct, frozen=True):
    """The numbered lines of a window and what the note after them says."""

    lines: tuple[str, ...]
    first: int
    total: int | None
    """The file's number of lines; None when the file was not read to its end."""
    more: bool
    """True when lines follow the window."""
    crlf: bool


class NotText(Struct, frozen=True):
    """Why the file is not shown as text: ``binary`` (a NUL byte) or ``encoding`` (not UTF-8), and on which line."""

    reason: str
    line: int


class _Line(Struct, frozen=True):
    head: bytes
    """The line's first bytes (at most :data:`LINE_BYTES`), its line end included when it fits."""
    rest_chars: int
    """Characters after ``head`` that were skipped."""
    nul: bool
    """True when a NUL byte was seen in the skipped part."""

    @property
    def long(self) -> bool:
        return self.rest_chars > 0


def read_window(handle: BinaryIO, size: int, first: int, limit: int) -> Window | NotText:
    """Lines ``first`` .. ``first + limit - 1`` of ``handle`` (1-based) in read_file's ``cat -n`` format."""
    count_all = size <= COUNT_UP_TO
    skipped = 0
    if not count_all and first > 1:  # the lines before the window are neither shown nor checked: only counted
        skipped = _skip_lines(handle, first - 1)
        if skipped < first - 1:
            return Window((), first, skipped, False, False)
    shown: list[str] = []
    used, number, crlf, more = 0, skipped, False, False
    for number, line in enumerate(_lines(handle), start=skipped + 1):
        in_window = first <= number < first + limit and not more
        if in_window or count_all:
            problem = _not_text(line, number, check_nul=in_window)
            if problem is not None:
                return problem
        if not in_window:
            more = more or number >= first
            if more and not count_all:
                return Window(tuple(shown), first, None, True, crlf)
            continue
        text = _decoded_head(line)
        entry = f"{number:>6}\t" + clip(text.removesuffix("\n").removesuffix("\r"), number, line.rest_chars)
        if shown and used + len(entry) > READ_OUTPUT_BUDGET:
            more = True
            continue
        crlf = crlf or (not line.long and text.endswith("\r\n"))
        shown.append(entry)
        used += len(entry) + 1
    return Window(tuple(shown), first, number, more or first + len(shown) - 1 < number, crlf)


def clip(line: str, number: int, skipped: int = 0) -> str:
    """``line`` (the text of line ``number``) cut to :data:`MAX_LINE_CHARS`, saying how long it was."""
    if number == 1:
        line = line.removeprefix("\ufeff")
    if len(line) <= MAX_LINE_CHARS and not skipped:
        return line
    return f"{line[:MAX_LINE_CHARS]}... [line cut: {len(line) + skipped} characters in all]"


def _lines(handle: BinaryIO) -> Iterator[_Line]:
    while head := handle.readline(LINE_BYTES):
        if head.endswith(b"\n") or len(head) < LINE_BYTES:
            yield _Line(head, 0, False)
            continue
        rest_chars, nul = _skip_rest_of_line(handle)
        yield _Line(head, rest_chars, nul)


def _skip_lines(handle: BinaryIO, count: int) -> int:
    """Read past ``count`` lines, a chunk at a time; the number of lines passed (fewer at the end of the file)."""
    passed, last = 0, b"\n"
    while chunk := handle.read(_SKIP_CHUNK):
        newlines = chunk.count(b"\n")
        if passed + newlines >= count:
            end = -1
            for _ in range(count - passed):
                end = chunk.index(b"\n", end + 1)
            handle.seek(end + 1 - len(chunk), 1)  # back to just after the last line passed
            return count
        passed, last = passed + newlines, chunk[-1:]
    return passed + (last != b"\n")  # a last line without a newline counts


def _skip_rest_of_line(handle: BinaryIO) -> tuple[int, bool]:
    """Read past the end of the current line, counting its characters; stops at a NUL byte (a binary file)."""
    chars = 0
    while chunk := handle.readline(_SKIP_CHUNK):
        if b"\0" in chunk:
            return chars, True
        chars += len(chunk.removesuffix(b"\n").removesuffix(b"\r").translate(None, _CONTINUATION_BYTES))
        if chunk.endswith(b"\n"):
            break
    return chars, False


def _not_text(line: _Line, number: int, *, check_nul: bool) -> NotText | None:
    if check_nul and (line.nul or b"\0" in line.head):
        return NotText("binary", number)
    try:
        _decoded_head(line)
    except UnicodeDecodeError:
        return NotText("encoding", number)
    return None


def _decoded_head(line: _Line) -> str:
    if not line.long:
        return line.head.decode("utf-8")
    # The head of a long line may end inside a character: keep the whole characters.
    return codecs.getincrementaldecoder("utf-8")().decode(line.head, final=False)
