"""Incremental splitting of streamed markdown into top-level blocks, decided one line at a time.

Only the unfinished block is kept. Line rules modelled on markdown-it's (the parser Rich renders with)
propose where a block ends; a proposal that depends on the next line is confirmed by markdown-it itself,
reading just the block and that line, before the block is released. So a released block renders exactly
as it would inside the whole document; when in doubt, lines stay together and the block is released later.
"""

from __future__ import annotations

from enum import Enum, auto

from hive_cli.render import lines as rules
from hive_cli.render.lines import Fence, HtmlStart, Line
from hive_cli.render.parser import PARSER


class Kind(Enum):
    """What the block in progress is."""

    NONE = auto()
    LINE = auto()  # a block complete with its one line: a heading, a thematic break, a one-line HTML block
    PARAGRAPH = auto()
    TABLE = auto()
    QUOTE = auto()
    LIST = auto()
    FENCE = auto()
    INDENTED_CODE = auto()
    HTML = auto()


class BlockSplitter:
    """Takes text deltas and returns the source of every top-level block they complete."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._partial = ""
        self._lines: list[str] = []
        self._kind = Kind.NONE
        self._fence: Fence | None = None
        self._html: HtmlStart | None = None
        self._list_indent = 0
        self._last: Line | None = None

    def feed(self, text: str) -> list[str]:
        """Add a delta; return the blocks it completed (usually none), in order."""
        if "\n" not in text:
            self._partial += text
            return []
        *complete, self._partial = (self._partial + text).split("\n")
        done: list[str] = []
        for raw in complete:
            self._take(raw + "\n", done)
        return done

    def pending(self) -> str:
        """The source of the block in progress, including the unfinished line."""
        return "".join(self._lines) + self._partial

    def pending_tail(self, max_lines: int) -> str:
        """Like pending(), but a long fenced code block comes as its opening line and its last lines only
        (enough for a live view of its end, without highlighting all of it on every refresh)."""
        lines = self._lines
        if self._kind is Kind.FENCE and len(lines) > max_lines + 1:
            return lines[0] + "".join(lines[-max_lines:]) + self._partial
        return self.pending()

    def flush(self) -> str:
        """Return whatever is left (the block in progress and the unfinished line) and start over."""
        rest = self.pending()
        self._reset()
        return rest

    def _take(self, raw: str, done: list[str]) -> None:
        line = Line.parse(raw.rstrip("\r\n"))
        if len(self._lines) == 1 and self._last is not None and rules.is_table_start(self._last, line):
            # Whatever the first line looked like, a delimiter row under it makes it a table's header row.
            self._kind = Kind.TABLE
            self._append(raw, line)
        elif self._kind is Kind.FENCE:
            self._append(raw, line)
            if self._fence is not None and self._fence.closed_by(line):
                done.append(self._release())
        elif self._kind is Kind.HTML and self._html is not None and self._html.end is not None:
            self._append(raw, line)
            if self._html.ended_by(line):
                done.append(self._release())
        elif self._kind is Kind.NONE:
            self._start(raw, line, done)
        elif self._continues(line) or not _ends_before(self._lines, raw):
            self._append(raw, line)
        else:
            done.append(self._release())
            self._start(raw, line, done)

    def _continues(self, line: Line) -> bool:
        """Whether the line belongs to the block in progress (it may switch the block's kind); False proposes
        that the block ended before it."""
        kind = self._kind
        if kind is Kind.LIST:
            return self._continues_list(line)
        if line.blank:
            return kind is Kind.INDENTED_CODE
        if kind is Kind.PARAGRAPH:
            return self._continues_paragraph(line)
        if kind is Kind.TABLE:
            return not (line.code_indented or rules.opens_block(line))
        if kind is Kind.QUOTE:
            return rules.is_quote(line) or not (rules.opens_block(line) or self._after_empty_quote_line())
        if kind is Kind.INDENTED_CODE:
            return line.code_indented
        return True  # an HTML block that ends at a blank line

    def _continues_paragraph(self, line: Line) -> bool:
        last = self._last
        if last is not None and rules.is_table_start(last, line):
            self._kind = Kind.TABLE
            return True
        if last is not None and len(self._lines) > 1 and rules.is_setext_underline(last):
            return False  # the line above made the paragraph a heading, which has ended
        if rules.is_setext_underline(line):
            return True
        return line.code_indented or not rules.interrupts_paragraph(line)

    def _after_empty_quote_line(self) -> bool:
        last = self._last
        return last is not None and rules.is_quote(last) and not last.rest[1:].strip()

    def _continues_list(self, line: Line) -> bool:
        if line.blank or line.indent >= self._list_indent:
            return True
        marker = rules.list_marker(line)
        if marker is not None:
            self._list_indent = marker.content_indent
            return True
        after_blank = self._last is not None and self._last.blank
        # Otherwise a lazy continuation of the item's paragraph, or a line that ends the list: kept either way.
        return not (after_blank or rules.opens_block(line))

    def _start(self, raw: str, line: Line, done: list[str]) -> None:
        if line.blank:
            return
        self._append(raw, line)
        self._kind = self._opening_kind(line)
        if self._kind is Kind.LINE:
            if "|" in line.rest:  # it may yet be a table's header row, which only the next line can tell
                self._kind = Kind.PARAGRAPH
            else:
                done.append(self._release())

    def _opening_kind(self, line: Line) -> Kind:
        """The kind of block the line opens (the first line of a block, at the top level)."""
        if rules.is_heading(line) or rules.is_thematic_break(line):
            return Kind.LINE
        if line.code_indented:
            return Kind.INDENTED_CODE
        if (fence := rules.fence_opening(line)) is not None:
            self._fence = fence
            return Kind.FENCE
        if rules.is_quote(line):
            return Kind.QUOTE
        if (marker := rules.list_marker(line)) is not None:
            self._list_indent = marker.content_indent
            return Kind.LIST
        if (html := rules.html_start(line)) is not None:
            self._html = html
            return Kind.LINE if html.ended_by(line) else Kind.HTML
        return Kind.PARAGRAPH

    def _append(self, raw: str, line: Line) -> None:
        self._lines.append(raw)
        self._last = line

    def _release(self) -> str:
        block = "".join(self._lines)
        self._lines = []
        self._kind = Kind.NONE
        self._fence = None
        self._html = None
        self._last = None
        return block


def _ends_before(lines: list[str], raw: str) -> bool:
    """True when markdown-it, reading the block and the next line, ends every element of the block before it."""
    boundary = len(lines)
    for token in PARSER.parse("".join(lines) + raw):
        if token.level == 0 and token.nesting >= 0 and token.map is not None:
            start, end = token.map
            if start < boundary < end:
                return False
    return True
