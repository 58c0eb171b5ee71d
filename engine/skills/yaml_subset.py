"""A fast reader for the plain shape most SKILL.md frontmatter has, giving exactly what strictyaml gives.

strictyaml (the YAML dialect of the reference validator) costs about 2 ms per frontmatter, which makes
validating a thousand skills slow. Real frontmatter is nearly always a flat block mapping of one-line
scalars, a ``|``/``>`` block scalar for the description, and a one-level ``metadata`` mapping. This
module reads that subset in microseconds. It is deliberately conservative: whenever a document holds
anything outside the subset (flow style, anchors, tabs, comments after values, escapes, odd
indentation, ...) it returns ``None`` and the caller parses the text with strictyaml itself. It never
reports an error: errors and their exact texts always come from strictyaml.

Every scalar is a string, as in strictyaml; an empty value is ``""``.
"""

from __future__ import annotations

import re

Value = str | dict[str, str] | list[str | dict[str, str]]
Data = dict[str, Value]

_KEY_LINE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.-]*):(?: +(.*))?")
_NESTED_LINE = re.compile(r"( +)([A-Za-z0-9_][A-Za-z0-9_.-]*):(?: +(.*))?")
_ITEM_LINE = re.compile(r"( +)- +(.*)")
# Characters the YAML reader may treat specially (line breaks other than LF, BOM, CR, tab) or refuses
# (non-printable ones); any of them sends the document to strictyaml.
# (Listed rather than as the complement of the printable ranges: that class takes 4 ms to compile.)
_UNUSUAL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_PLAIN_FIRST_FORBIDDEN = frozenset("-?:,[]{}#&*!|>'\"%@`")
_BLOCK_HEADERS = {
    "|": ("literal", "clip"),
    "|-": ("literal", "strip"),
    ">": ("folded", "clip"),
    ">-": ("folded", "strip"),
}


class _Defer(Exception):
    """The document leaves the subset; strictyaml must read it."""


def parse_simple_mapping(text: str) -> Data | None:
    """The mapping ``text`` holds, or ``None`` when ``text`` is outside the subset this module reads.

    ``text`` is the frontmatter as the reference validator cuts it: everything between the first
    ``---`` and the next one, starting with the rest of the opening line.
    """
    if not text.startswith("\n") or not text.endswith("\n") or _UNUSUAL.search(text):
        return None
    try:
        return _Reader(text[1:-1].split("\n")).read()
    except _Defer:
        return None


class _Reader:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.pos = 0
        self.nested_indent: int | None = None

    def read(self) -> Data:
        data: Data = {}
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            self.pos += 1
            if not line.strip(" ") or line.startswith("#"):
                continue
            match = _KEY_LINE.fullmatch(line.rstrip(" "))
            if match is None:
                raise _Defer
            key, value = match.group(1), match.group(2)
            if key in data:
                raise _Defer
            data[key] = self._value(value or "")
        if not data:
            raise _Defer
        return data

    def _value(self, raw: str) -> Value:
        if raw in _BLOCK_HEADERS:
            return self._block_scalar(*_BLOCK_HEADERS[raw])
        if raw:
            first = _one_line_scalar(raw)
            return self._plain_continuation(first) if raw[0] not in "'\"" else self._no_indented_lines(first)
        if self._next_content_indented():
            return self._nested_block()
        return ""

    def _next_content_indented(self) -> bool:
        for line in self.lines[self.pos :]:
            if line.strip(" "):
                return line.startswith(" ")
        return False

    def _no_indented_lines(self, value: str) -> str:
        if self._next_content_indented():
            raise _Defer
        return value

    def _plain_continuation(self, first: str) -> str:
        """A plain scalar folded over indented lines: the lines are joined with single spaces."""
        parts = [first]
        while self.pos < len(self.lines) and self.lines[self.pos].startswith(" "):
            part = self.lines[self.pos].strip(" ")
            if not part:
                break
            _check_plain(part, first_line=False)
            parts.append(part)
            self.pos += 1
        return self._no_indented_lines(" ".join(parts))

    def _block_scalar(self, style: str, chomping: str) -> str:
        body: list[str] = []
        while self.pos < len(self.lines) and (not self.lines[self.pos] or self.lines[self.pos].startswith(" ")):
            body.append(self.lines[self.pos])
            self.pos += 1
        while body and not body[-1]:
            body.pop()
        if not body or not body[0].strip(" "):
            raise _Defer
        indent = len(body[0]) - len(body[0].lstrip(" "))
        content = []
        for line in body:
            if line and (not line.strip(" ") or not line.startswith(" " * indent)):
                raise _Defer
            content.append(line[indent:])
        text = "\n".join(content) if style == "literal" else _fold(content)
        return text + "\n" if chomping == "clip" else text

    def _nested_block(self) -> dict[str, str] | list[str | dict[str, str]]:
        """The indented lines under ``key:``: a one-level mapping or a sequence of scalars or flat mappings."""
        lines = self._indented_lines()
        if _ITEM_LINE.fullmatch(lines[0]):
            return _sequence(lines)
        mapping, indent = _flat_mapping(lines)
        if self.nested_indent is not None and indent != self.nested_indent:
            raise _Defer
        self.nested_indent = indent
        return mapping

    def _indented_lines(self) -> list[str]:
        """The following indented lines, trailing spaces removed and empty lines skipped."""
        lines = []
        while self.pos < len(self.lines) and (not self.lines[self.pos] or self.lines[self.pos].startswith(" ")):
            line = self.lines[self.pos].rstrip(" ")
            self.pos += 1
            if line:
                lines.append(line)
        return lines


def _flat_mapping(lines: list[str]) -> tuple[dict[str, str], int]:
    """``key: scalar`` lines, all at one indentation; the mapping and that indentation."""
    mapping: dict[str, str] = {}
    indent = None
    for line in lines:
        match = _NESTED_LINE.fullmatch(line)
        if match is None or (indent is not None and len(match.group(1)) != indent):
            raise _Defer
        indent = len(match.group(1))
        key, value = match.group(2), match.group(3) or ""
        if key in mapping:
            raise _Defer
        mapping[key] = _one_line_scalar(value) if value else ""
    assert indent is not None
    return mapping, indent


def _sequence(lines: list[str]) -> list[str | dict[str, str]]:
    """``- item`` lines at one indentation; an item is a scalar or a flat mapping begun on its dash line."""
    first = _ITEM_LINE.fullmatch(lines[0])
    assert first is not None
    indent = len(first.group(1))
    items: list[str | dict[str, str]] = []
    index = 0
    while index < len(lines):
        match = _ITEM_LINE.fullmatch(lines[index])
        if match is None or len(match.group(1)) != indent:
            raise _Defer
        index += 1
        content = match.group(2)
        if _NESTED_LINE.fullmatch(" " + content) is None:
            items.append(_one_line_scalar(content))
            continue
        column = match.start(2)
        member = [" " * column + content]
        while index < len(lines) and not _ITEM_LINE.fullmatch(lines[index]):
            member.append(lines[index])
            index += 1
        mapping, member_indent = _flat_mapping(member)
        if member_indent != column:
            raise _Defer
        items.append(mapping)
    return items


def _one_line_scalar(raw: str) -> str:
    """A plain, single-quoted or double-quoted scalar on one line (trailing spaces already removed)."""
    if raw[0] == "'":
        inner = raw[1:-1]
        if len(raw) < 2 or raw[-1] != "'" or "'" in inner.replace("''", ""):
            raise _Defer
        return inner.replace("''", "'")
    if raw[0] == '"':
        inner = raw[1:-1]
        if len(raw) < 2 or raw[-1] != '"' or '"' in inner or "\\" in inner:
            raise _Defer
        return inner
    _check_plain(raw, first_line=True)
    return raw


def _check_plain(text: str, *, first_line: bool) -> None:
    """Refuse plain text whose meaning in YAML could be anything but the characters themselves."""
    if text[0] in _PLAIN_FIRST_FORBIDDEN or ": " in text or " #" in text or text.endswith(":"):
        raise _Defer
    if not first_line and (text.startswith("#") or text in ("...", "---")):
        raise _Defer


def _fold(lines: list[str]) -> str:
    """Folded-style line joining for lines that are all at the content indentation."""
    if any(line.startswith(" ") for line in lines):
        raise _Defer
    out = lines[0]
    blanks = 0
    for line in lines[1:]:
        if not line:
            blanks += 1
            continue
        out += ("\n" * blanks if blanks else " ") + line
        blanks = 0
    return out
