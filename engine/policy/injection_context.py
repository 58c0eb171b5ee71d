"""Where a phrase sits in a text and what the words around it ask: what the injection guard judges by.

A phrase that looks like prompt injection is an attack when it reaches the model as an order, and a
mention when a text talks about such orders: a quoted example in prose, a string in a code sample,
a sentence that describes what attackers write. Hidden text (an HTML comment, an element styled
invisible, zero-width characters) is never a mention: only a model reads it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from msgspec import Struct

Placement = Literal["hidden", "code", "quoted", "flow"]

_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_HIDDEN = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<(\w+)\b[^>]*(?:\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0"
    r"|color\s*:\s*(?:white|#fff(?:fff)?\b|transparent))[^>]*>.*?(?:</\1\s*>|\Z)",
    re.IGNORECASE | re.DOTALL,
)
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)[^`\n]+?\1")
_QUOTE = re.compile(r"\"[^\"\n]{1,160}\"|“[^”\n]{1,160}”|(?<!\w)'[^'\n]{1,160}'(?!\w)")
_SENTENCE_END = re.compile(r"[.!?:;]\s|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+#>|]|\d+\.)\s)|\(")
_PAYLOAD = re.compile(
    r"\b(?:https?|ftp)://|\bwww\.|[\w.+-]+@[\w-]+\.\w"
    r"|\brm\s+-\w*[rf]|\b(?:curl|wget|sudo|chmod|powershell|base64)\b|\|\s*(?:ba)?sh\b"
    r"|~/\.ssh|\bid_(?:rsa|ed25519)\b|(?<![\w.])\.env\b|/etc/(?:passwd|shadow)|\.aws/credentials",
    re.IGNORECASE,
)
_FOLLOW_UP = re.compile(
    r"^[^.\n]{0,30}?\b(?:and|then)\s+(?:run|execute|delete|remove|send|print|tell|upload|post|email|push|install|"
    r"download|write|reveal|output|say|reply|respond|answer|obey|follow)\b",
    re.IGNORECASE,
)
_DESCRIBING = re.compile(
    r"\b(?:requests?|attempts?|orders?|commands?|phrases?|text|strings?|words|payloads?|attacks?|attackers?|"
    r"injections?|prompts?|tricks?|asks?|asking|tells?|telling|tries|trying|try|designed|meant)\b"
    r"[^.!?]{0,60}?\bto\s*$"
    r"|\b(?:such as|like|e\.g\.,?|i\.e\.,?|for example,?|for instance,?|as in)\s*$",
    re.IGNORECASE,
)
_ADDRESSED = re.compile(
    r"\bplease\b|\b(?:you|assistants?|agents?|models?|ai)\s+(?:must|should|shall|need|have|will|are (?:now|required))\b",
    re.IGNORECASE,
)


class Span(Struct, frozen=True):
    """A stretch of text, ``start`` to ``end``."""

    start: int
    end: int


class TextLayout(Struct, frozen=True, kw_only=True):
    """A text without its zero-width characters, and where its hidden, code and quoted stretches are."""

    text: str
    hidden: tuple[Span, ...]
    code: tuple[Span, ...]
    quoted: tuple[Span, ...]

    def placement(self, start: int, end: int) -> Placement:
        """Where the phrase at ``start``..``end`` sits: hidden when it touches hidden text; code or quoted when
        it begins and ends in code (a phrase across two code spans is code too) or in a quote; else the flow."""
        if any(span.start < end and start < span.end for span in self.hidden):
            return "hidden"
        if _inside(start, self.code) and _inside(end - 1, self.code):
            return "code"
        if any(span.start <= start and end <= span.end for span in self.quoted):
            return "quoted"
        return "flow"

    def enclosing(self, start: int, end: int) -> Span:
        """What a phrase's request is judged in: its line inside code or a quote, else its sentence."""
        if any(span.start <= start < span.end for span in (*self.code, *self.quoted)):
            line_end = self.text.find("\n", end)
            return Span(self.text.rfind("\n", 0, start) + 1, len(self.text) if line_end < 0 else line_end)
        return Span(sentence_start(self.text, start), sentence_end(self.text, end))


def layout(text: str) -> TextLayout:
    """``text``'s layout; zero-width characters are dropped, and the lines that held them count as hidden."""
    visible = _ZERO_WIDTH.sub("", text)
    hidden = [Span(m.start(), m.end()) for m in _HIDDEN.finditer(visible)]
    if visible != text:
        hidden += _lines_with_zero_width(text)
    fences = [Span(m.start(), m.end()) for m in _FENCE.finditer(visible)]
    spans = [Span(m.start(), m.end()) for m in _CODE_SPAN.finditer(visible) if not _inside(m.start(), fences)]
    quotes = [Span(m.start(), m.end()) for m in _QUOTE.finditer(visible) if _embedded(visible, m.start(), m.end())]
    return TextLayout(text=visible, hidden=tuple(hidden), code=(*fences, *spans), quoted=tuple(quotes))


def carries_payload(text: str, span: Span, phrase_end: int) -> bool:
    """Whether the words around a phrase ask for something concrete: a link, a command, a secret, a next step."""
    return bool(_PAYLOAD.search(text, span.start, span.end) or _FOLLOW_UP.match(text[phrase_end : span.end]))


def reads_as_description(text: str, start: int) -> bool:
    """Whether the sentence leading up to ``start`` describes the phrase (attacks "try to ...", "such as")
    rather than addresses the reader ("please", "you must")."""
    lead = text[sentence_start(text, start) : start]
    return bool(_DESCRIBING.search(lead)) and not _ADDRESSED.search(lead)


def sentence_start(text: str, position: int) -> int:
    """Where the sentence holding ``position`` begins."""
    ends = list(_SENTENCE_END.finditer(text, max(0, position - 300), position))
    return ends[-1].end() if ends else max(0, position - 300)


def sentence_end(text: str, position: int) -> int:
    """Where the sentence holding ``position`` ends."""
    found = _SENTENCE_END.search(text, position, position + 300)
    return found.start() if found else min(len(text), position + 300)


def _inside(position: int, spans: Sequence[Span]) -> bool:
    return any(span.start <= position < span.end for span in spans)


def _embedded(text: str, start: int, end: int) -> bool:
    """A quote inside a line of other words (an example in prose), not a line that is only a quote."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    outside = text[line_start:start] + text[end : len(text) if line_end < 0 else line_end]
    return len(re.sub(r"[\W_]", "", outside)) >= 3


def _lines_with_zero_width(text: str) -> list[Span]:
    """The lines of ``text`` that held zero-width characters, as spans of the text without them."""
    spans = []
    position = 0
    for line in text.splitlines(keepends=True):
        visible = _ZERO_WIDTH.sub("", line)
        if visible != line:
            spans.append(Span(position, position + len(visible)))
        position += len(visible)
    return spans
