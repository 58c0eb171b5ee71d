"""Rules (Python regexes and how to read their matches) run over a text's bytes, as secret spans.

A rule's match holds its secret in its non-empty capturing groups, or in the whole match when it
has none (detect-secrets' reading of its patterns); whitespace and quotes a pattern takes around a
token are not part of it. A secret runs on to the end of the token it starts: a key longer than the
pattern expects, or a pattern whose group holds only a token's prefix (``ghp``), must leave nothing
of the token behind. A rule's ``accept`` may turn a secret down (a placeholder, an indirect
reference...).

Rules are matched as detect-secrets scans a file, line by line: a rule without lookarounds or
backreferences is run by RE2 over the whole text, ``^``/``$`` at each line (only a pattern that
says so, such as a private key's block, spans lines); the others are tried by Python's ``re`` on the
lines where their RE2 superset matches. RE2's literal prefilter picks the rules worth trying at all,
so a text with none of the rules' literals costs about one pass.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from msgspec import Struct

from engine.redaction.regex import (
    CandidateFilter,
    Pattern,
    python_pattern,
    re2_module,
    re2_pattern,
    re2_source,
    superset,
)

Accept = Callable[[str, str], bool]
"""``accept(secret, line)``: whether a secret found on ``line`` stands (False: let it go)."""

_TOKEN_TAIL = re.compile(rb"[A-Za-z0-9_-]*")
_AROUND_TOKEN = b" \t\r\n\"'`"


class Rule(Struct, frozen=True, kw_only=True):
    """One regex of the ruleset: the kind its marker shows, its source and flags, how to read a match."""

    kind: str
    source: str
    flags: int = 0
    groups: tuple[int, ...] = ()
    """The groups that hold the secret; empty: every non-empty group, or the whole match when there is none."""
    accept: Accept | None = None


class Finding(Struct, frozen=True):
    """A secret's span in the encoded text, the kind that names it, and its rule's rank (lower names first)."""

    start: int
    end: int
    kind: str
    rank: int = 0


class Text:
    """A text as the rules see it: its UTF-8 bytes."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def line_span(self, start: int, end: int) -> tuple[int, int]:
        """Where the lines a span lies on start and end (without the last line's newline)."""
        first = self.raw.rfind(b"\n", 0, start) + 1
        last = self.raw.find(b"\n", end)
        return first, last if last >= 0 else len(self.raw)


class _Compiled:
    """A rule ready to run, by RE2 over the whole text, or line by line as its RE2 superset points.

    A rule with lookarounds or backreferences is matched by Python's ``re`` on the lines where its
    superset matches; the others over the whole text, by RE2 (by ``re`` where RE2 is missing or
    refuses one). The ``re`` pattern is compiled at its first use: Python's compiler is the slow
    part of building the ruleset.
    """

    def __init__(self, rule: Rule, *, python_only: bool) -> None:
        self.rule = rule
        candidates = superset(rule.source)
        self.confirmed = candidates != rule.source
        self.filter_source = re2_source(candidates, rule.flags)
        search = None if python_only else re2_pattern(self.filter_source)
        if search is None:
            self.filter_source = ""  # RE2 refuses it: tried on every text
            search = python_pattern(candidates, rule.flags)
        self.search: Pattern = search

    @functools.cached_property
    def confirm(self) -> re.Pattern[bytes]:
        """The rule as Python's ``re`` runs it."""
        return python_pattern(self.rule.source, self.rule.flags)

    def matches(self, text: Text) -> Iterator[Any]:
        """The rule's matches, line by line."""
        if not self.confirmed:
            yield from self.search.finditer(text.raw)
            return
        tried: set[int] = set()
        for candidate in self.search.finditer(text.raw):
            line_start, line_end = text.line_span(candidate.start(), candidate.end())
            for start, end in _lines(text.raw, line_start, line_end):
                if start not in tried:
                    tried.add(start)
                    yield from self.confirm.finditer(text.raw, start, end)


class RuleSet:
    """Rules ready to run; a rule's rank is its place in the list (earlier rules name shared spans)."""

    def __init__(self, rules: Sequence[Rule], *, python_only: bool = False) -> None:
        """``python_only``: Python's ``re`` for everything, as where google-re2 cannot be installed."""
        self.rules = tuple(rules)
        self.python_only = python_only or re2_module() is None
        self._compiled = [_Compiled(rule, python_only=self.python_only) for rule in self.rules]
        self._filter = None if self.python_only else CandidateFilter([c.filter_source for c in self._compiled])

    def python_rules(self) -> list[str]:
        """The kinds of the rules that Python's ``re`` confirms (RE2 cannot run them as they are)."""
        return [rule.kind for rule, compiled in zip(self.rules, self._compiled, strict=True) if compiled.confirmed]

    def findings(self, text: Text) -> Iterator[Finding]:
        """Every secret the rules find in ``text``."""
        indices = range(len(self.rules)) if self._filter is None else self._filter.matching(text.raw)
        for index in indices:
            rule = self.rules[index]
            for match in self._compiled[index].matches(text):
                for start, end in _secret_spans(rule, match, text.raw):
                    if _accepted(rule, text, start, end):
                        yield Finding(start, _token_end(text.raw, end), rule.kind, index)


def _secret_spans(rule: Rule, match: Any, raw: bytes) -> Iterator[tuple[int, int]]:
    numbers = rule.groups or range(1, len(match.groups()) + 1)
    spans = [(match.start(n), match.end(n)) for n in numbers if match.start(n) < match.end(n)]
    if not spans and not rule.groups:
        spans = [(match.start(0), match.end(0))]
    for start, end in spans:
        while start < end and raw[start] in _AROUND_TOKEN:
            start += 1
        while end > start and raw[end - 1] in _AROUND_TOKEN:
            end -= 1
        if start < end:
            yield start, end


def _accepted(rule: Rule, text: Text, start: int, end: int) -> bool:
    if rule.accept is None:
        return True
    line_start, line_end = text.line_span(start, end)
    secret = text.raw[start:end].decode("utf-8", "replace")
    return rule.accept(secret, text.raw[line_start:line_end].decode("utf-8", "replace"))


def _token_end(raw: bytes, end: int) -> int:
    """Where the token a secret ends in ends: past the letters, digits, ``_`` and ``-`` that follow it.

    A secret ending in ``.`` runs on too: JWT's pattern stops at the dot before the signature.
    """
    if not end or raw[end - 1 : end] not in _TOKEN_BYTES:
        return end
    tail = _TOKEN_TAIL.match(raw, end)
    return tail.end() if tail else end


_TOKEN_BYTES = {bytes([b]) for b in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."}


def _lines(raw: bytes, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` of each line between ``start`` and ``end`` (each without its newline)."""
    while True:
        newline = raw.find(b"\n", start, end)
        if newline < 0:
            yield start, end
            return
        yield start, newline
        start = newline + 1
