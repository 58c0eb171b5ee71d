"""What one markdown source line can start or end, judged the way markdown-it (Rich's parser) judges it."""

from __future__ import annotations

import re

from markdown_it.rules_block.html_block import HTML_SEQUENCES
from msgspec import Struct

_ATX_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)")
_THEMATIC_BREAK = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*")
_SETEXT_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*")
_LIST_MARKER = re.compile(r"([-+*]|(\d{1,9})[.)])([ \t]*)(.*)")
_DELIMITER_ROW = re.compile(r"[-:|][-:| \t]*")
_DELIMITER_CELL = re.compile(r":?-+:?")


class Line(Struct, frozen=True):
    """One source line without its line ending, split into indentation (in columns) and the rest."""

    text: str
    indent: int
    rest: str

    @classmethod
    def parse(cls, text: str) -> Line:
        """Measure the indentation the CommonMark way: a tab advances to the next multiple of 4 columns."""
        column = 0
        for i, char in enumerate(text):
            if char == " ":
                column += 1
            elif char == "\t":
                column += 4 - column % 4
            else:
                return cls(text, column, text[i:])
        return cls(text, column, "")

    @property
    def blank(self) -> bool:
        """True for an empty or whitespace-only line."""
        return not self.rest

    @property
    def code_indented(self) -> bool:
        """True when the indentation alone makes the line (part of) an indented code block."""
        return self.indent >= 4 and not self.blank

    @property
    def shallow(self) -> bool:
        """True for a non-blank line indented at most 3 columns: only such a line can open or close a block."""
        return self.indent <= 3 and not self.blank


class Fence(Struct, frozen=True):
    """An open fenced code block: the closing fence repeats its character at least as many times."""

    char: str
    length: int

    def closed_by(self, line: Line) -> bool:
        """True when the line is a closing fence for this block."""
        if not line.shallow or not line.rest.startswith(self.char * self.length):
            return False
        return not line.rest.lstrip(self.char).strip(" \t")


class ListMarker(Struct, frozen=True):
    """A list item marker: where the item's content starts and whether the item may interrupt a paragraph."""

    content_indent: int
    interrupts_paragraph: bool


class HtmlStart(Struct, frozen=True):
    """The start of an HTML block; `end` is None for blocks that end at a blank line."""

    end: re.Pattern[str] | None
    interrupts_paragraph: bool

    def ended_by(self, line: Line) -> bool:
        """True when the line closes an HTML block that has an explicit end marker."""
        return self.end is not None and self.end.search(line.text) is not None


def is_heading(line: Line) -> bool:
    """An ATX heading: one to six '#' then a space or the end of the line."""
    return line.shallow and _ATX_HEADING.match(line.rest) is not None


def is_thematic_break(line: Line) -> bool:
    """Three or more '-', '*' or '_' (the same one), spaces allowed between them."""
    return line.shallow and _THEMATIC_BREAK.fullmatch(line.rest) is not None


def is_setext_underline(line: Line) -> bool:
    """A run of '=' or of '-' that turns the paragraph above it into a heading."""
    return line.shallow and _SETEXT_UNDERLINE.fullmatch(line.rest) is not None


def is_quote(line: Line) -> bool:
    """A block quote line."""
    return line.shallow and line.rest.startswith(">")


def fence_opening(line: Line) -> Fence | None:
    """The fence this line opens, if it is an opening code fence."""
    match = _FENCE_OPEN.fullmatch(line.rest) if line.shallow else None
    if match is None:
        return None
    marker, info = match.groups()
    if marker[0] == "`" and "`" in info:
        return None
    return Fence(marker[0], len(marker))


def list_marker(line: Line) -> ListMarker | None:
    """The list item this line starts (a thematic break wins over a list item, as in CommonMark)."""
    match = _LIST_MARKER.fullmatch(line.rest) if line.shallow else None
    if match is None or is_thematic_break(line):
        return None
    marker, number, spaces, content = match.groups()
    if not spaces and content:
        return None
    gap = len(spaces.expandtabs(4))
    if not content or gap > 4:
        gap = 1
    ordered_not_one = number is not None and int(number) != 1
    return ListMarker(line.indent + len(marker) + gap, bool(content.strip()) and not ordered_not_one)


def html_start(line: Line) -> HtmlStart | None:
    """The HTML block this line starts, using markdown-it's own start and end conditions."""
    if not line.shallow or not line.rest.startswith("<"):
        return None
    for start, end, interrupts in HTML_SEQUENCES:
        if start.search(line.rest):
            return HtmlStart(None if end.search("") else end, interrupts)
    return None


def is_table_start(header: Line, delimiter: Line) -> bool:
    """True when the two lines open a table: a header row with pipes and a delimiter row of as many cells."""
    if header.code_indented or delimiter.code_indented or "|" not in header.rest:
        return False
    row = delimiter.rest.rstrip()
    if len(row) < 2 or not _DELIMITER_ROW.fullmatch(row) or (row[0] == "-" and row[1] in " \t"):
        return False
    cells = row.split("|")
    aligned = 0
    for i, cell in enumerate(cells):
        cell = cell.strip(" \t")
        if not cell and i in (0, len(cells) - 1):
            continue
        if not _DELIMITER_CELL.fullmatch(cell):
            return False
        aligned += 1
    return aligned > 0 and aligned == _header_cells(header.rest.strip(" \t"))


def _header_cells(row: str) -> int:
    cells = re.split(r"(?<!\\)\|", row)
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return len(cells)


def opens_block(line: Line) -> bool:
    """True for the lines that end a block quote, a table or a list item they are not part of."""
    return (
        is_heading(line)
        or is_thematic_break(line)
        or is_quote(line)
        or fence_opening(line) is not None
        or list_marker(line) is not None
        or _interrupting_html(line)
    )


def interrupts_paragraph(line: Line) -> bool:
    """True for the lines that end a paragraph without a blank line (tables are judged separately)."""
    marker = list_marker(line)
    return (
        is_heading(line)
        or is_thematic_break(line)
        or is_quote(line)
        or fence_opening(line) is not None
        or (marker is not None and marker.interrupts_paragraph)
        or _interrupting_html(line)
    )


def _interrupting_html(line: Line) -> bool:
    start = html_start(line)
    return start is not None and start.interrupts_paragraph
