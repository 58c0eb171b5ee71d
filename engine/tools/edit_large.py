"""edit_file on a large file: found, checked and replaced chunk by chunk, never held whole.

A file over :data:`LARGE_FILE_BYTES` is read in chunks of :data:`CHUNK_BYTES` (``os.pread``): one pass
checks it is text (no NUL byte, UTF-8 through an incremental decoder) and counts its line endings; the
search for ``old_string`` keeps only the bytes a match could straddle between two chunks; the new file
is streamed to a temporary file in the same folder (before, the new text, after; or every match
replaced) and renamed over the old one, keeping its mode. The excerpt is built from the bytes around
the change. A miss gets no closest-region scan (it would read the whole file as lines): the answer
points to grep_files instead.

Chunks rather than a memory map: a mapped file counts in the process's resident memory as its pages
are touched (a 100 MB search would cost 100 MB), and a file truncated by someone else while mapped
kills the process (SIGBUS) instead of raising an error.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from engine.safe_read import UnsafeFile, describe_size, open_checked
from engine.tools.base import ToolContext, ToolResult
from engine.tools.edit_match import LineEndings, locate, numbered, snippet_bounds
from engine.tools.files import replaced_atomically
from engine.tools.hints import hint

LARGE_FILE_BYTES = 8 * 1024 * 1024
"""Files larger than this are edited by streaming; smaller ones are read whole (and get the closest-region help)."""
MAX_EDIT_BYTES = 1024 * 1024 * 1024
"""Larger files are not edited: every edit rewrites the whole file (seconds per gigabyte, and as much free disk)."""
CHUNK_BYTES = 256 * 1024
"""Bytes read (and written) at a time."""
CONTEXT_BYTES = 16 * 1024
"""Bytes read on each side of the change for the excerpt; a longer line is shown cut."""
_SHOWN_OCCURRENCES = 20
_AFTER_LINES = 4
"""Newlines read after a change for the excerpt: the rest of its last line and the context lines."""
_LINE_CHARS = 2000


class _NotText(Exception):
    """The file is not text; the message says why, as the small-file path says it."""


def edit_large(
    path: Path, shown: str, old: str, new: str, replace_all: bool, ctx: ToolContext, chunk: int = CHUNK_BYTES
) -> ToolResult:
    """Replace ``old`` with ``new`` in the large file ``path`` (edit_file's rules), streaming; the tool's result."""
    try:
        handle = open_checked(path)
    except UnsafeFile as refused:
        return ToolResult.error(f"{shown} was not edited: it {refused.reason}; edit_file changes regular text files.")
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_EDIT_BYTES:
            return ToolResult.error(
                f"{shown} was not edited: it is larger than {describe_size(MAX_EDIT_BYTES)}; edit_file changes "
                "files up to that size (each edit rewrites the whole file)."
            )
        try:
            endings = _check_text(handle, size, chunk)
        except _NotText as problem:
            return ToolResult.error(f"{shown} {problem}")
        if not old:
            return ToolResult.error(
                f"old_string is empty but {shown} already has content. Give the exact text to replace, or use "
                "write_file to replace the whole file."
            )
        return _replace(path, shown, _File(handle, size, chunk), endings, (old, new, replace_all), ctx)


class _File:
    """An open file read at offsets, a chunk at a time."""

    def __init__(self, handle: BinaryIO, size: int, chunk: int) -> None:
        self.fd = handle.fileno()
        self.size = size
        self.chunk = chunk

    def read(self, start: int, end: int) -> bytes:
        return os.pread(self.fd, max(0, end - start), start)

    def chunks(self, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        stop = self.size if end is None else end
        for offset in range(start, stop, self.chunk):
            yield self.read(offset, min(offset + self.chunk, stop))

    def matches(self, needle: bytes, start: int = 0) -> Iterator[int]:
        """The offsets of ``needle``'s non-overlapping occurrences from ``start``; only a chunk (and a tail) is held."""
        keep = len(needle) - 1
        carry, base = b"", start  # ``carry`` starts at ``base``
        for piece in self.chunks(start):
            data, at = carry + piece, 0
            while (found := data.find(needle, at)) >= 0:
                yield base + found
                at = found + len(needle)
            cut = max(at, len(data) - keep)
            carry, base = data[cut:], base + cut

    def newlines(self, start: int, end: int) -> int:
        return sum(piece.count(b"\n") for piece in self.chunks(start, end))


def _check_text(handle: BinaryIO, size: int, chunk: int) -> LineEndings:
    """The file's line endings, once every chunk is checked to be text (raises :class:`_NotText`)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    lf = crlf = 0
    last = b""
    for piece in _File(handle, size, chunk).chunks():
        if b"\0" in piece:
            raise _NotText("is a binary file; edit_file only changes text files.")
        try:
            decoder.decode(piece)
        except UnicodeDecodeError:
            raise _NotText("is not UTF-8 text; edit_file only changes UTF-8 text files.") from None
        lf += piece.count(b"\n")
        crlf += piece.count(b"\r\n") + (last == b"\r" and piece.startswith(b"\n"))
        last = piece[-1:]
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise _NotText("is not UTF-8 text; edit_file only changes UTF-8 text files.") from None
    return LineEndings(lf=lf, crlf=crlf)


def _replace(
    path: Path, shown: str, file: _File, endings: LineEndings, edit: tuple[str, str, bool], ctx: ToolContext
) -> ToolResult:
    old, new, replace_all = edit
    replacement = locate(lambda text: _contains(file, text), endings, old, new)
    if replacement is None:
        return ToolResult.error(_miss_message(old, shown, file.size, ctx))
    needle = replacement.old.encode("utf-8")
    found = list(islice(file.matches(needle), _SHOWN_OCCURRENCES + 1))
    if len(found) > 1 and not replace_all:
        return ToolResult.error(_ambiguous_message(file, found, shown))
    try:
        new_bytes = replacement.new.encode("utf-8")
    except UnicodeEncodeError as exc:
        return ToolResult.error(f"The new content cannot be written as UTF-8: {exc}")
    count = _write_replaced(path, file, needle, new_bytes, None if replace_all else 1)
    excerpt = _excerpt(file, found[0], needle, new_bytes, replace_all)
    summary = f"Edited {shown}: replaced {count} occurrence{'' if count == 1 else 's'}{replacement.note}."
    return ToolResult(f"{summary}\n{excerpt}")


def _contains(file: _File, text: str) -> bool:
    try:
        needle = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: never in a UTF-8 file
        return False
    return next(file.matches(needle), None) is not None


def _miss_message(old: str, shown: str, size: int, ctx: ToolContext) -> str:
    message = f"old_string was not found in {shown}."
    lines = [line for line in old.split("\n") if line.strip()]
    if lines and all(line.lstrip()[:1].isdigit() and "\t" in line for line in lines):
        return (
            f"{message} It seems to include read_file's line-number prefixes (a number and a tab at the start "
            "of each line); leave them out and copy only the file's text."
        )
    grep = hint(ctx, "grep_files", " Use grep_files to find where the text is, then read_file around it.")
    return (
        f"{message} The file is large ({_megabytes(size)}), so the closest region is not searched."
        f"{grep} Copy old_string exactly as the file has it."
    )


def _ambiguous_message(file: _File, found: list[int], shown: str) -> str:
    lines, line, position = [], 1, 0
    for offset in found[:_SHOWN_OCCURRENCES]:
        line += file.newlines(position, offset)
        lines.append(str(line))
        position = offset
    count = f"more than {_SHOWN_OCCURRENCES}" if len(found) > _SHOWN_OCCURRENCES else str(len(found))
    return (
        f"old_string occurs {count} times in {shown} (starting on lines {', '.join(lines)}). Include more "
        "surrounding lines to make it unique, or set replace_all to true to replace every occurrence."
    )


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def _write_replaced(path: Path, file: _File, needle: bytes, new: bytes, limit: int | None) -> int:
    """Write the file with ``needle`` replaced (at most ``limit`` times) through a temporary file; the count."""
    mode = stat.S_IMODE(os.fstat(file.fd).st_mode)
    with replaced_atomically(path, mode, buffering=file.chunk) as out:
        return _stream(file, out, needle, new, limit)


def _stream(file: _File, out: BinaryIO, needle: bytes, new: bytes, limit: int | None) -> int:
    count, position = 0, 0
    for offset in file.matches(needle):
        _copy(file, out, position, offset)
        out.write(new)
        count, position = count + 1, offset + len(needle)
        if count == limit:  # the rest is copied as it is, not searched again
            break
    _copy(file, out, position, file.size)
    return count


def _copy(file: _File, out: BinaryIO, start: int, end: int) -> None:
    for piece in file.chunks(start, end):
        out.write(piece)


def _excerpt(file: _File, offset: int, needle: bytes, new: bytes, replace_all: bool) -> str:
    """The changed lines and a few around them, numbered, from the bytes around the first change."""
    first_line = file.newlines(0, offset) + 1
    before = _lines_before(file, offset)
    after = file.read(offset + len(needle), offset + len(needle) + CONTEXT_BYTES)
    after = _first_lines(after.replace(needle, new) if replace_all else after, 2 * _AFTER_LINES)
    text = (before + new + after).decode("utf-8", "replace")
    lines = [_cut(line) for line in text.split("\n")]
    first_number = first_line - before.count(b"\n")
    last_changed = first_line + new.decode("utf-8").removesuffix("\n").count("\n")
    start, end = snippet_bounds(first_line, last_changed, first_number + len(lines) - 1)
    return numbered(lines, max(start, first_number), end, first_number)


def _lines_before(file: _File, offset: int) -> bytes:
    """The bytes from the start of the third line before ``offset``'s line (at most :data:`CONTEXT_BYTES`)."""
    window = file.read(max(0, offset - CONTEXT_BYTES), offset)
    cut = len(window)
    for _ in range(4):
        cut = window.rfind(b"\n", 0, cut)
        if cut < 0:
            return window if offset <= CONTEXT_BYTES else window[window.find(b"\n") + 1 :]
    return window[cut + 1 :]


def _first_lines(data: bytes, count: int) -> bytes:
    """``data`` up to its ``count``-th newline (excluded), or all of it."""
    end = -1
    for _ in range(count):
        end = data.find(b"\n", end + 1)
        if end < 0:
            return data
    return data[:end]


def _cut(line: str) -> str:
    return line if len(line) <= _LINE_CHARS else f"{line[:_LINE_CHARS]}... [line cut]"
