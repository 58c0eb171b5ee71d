"""Python regexes run with google-re2 where RE2 takes them, and by Python's ``re`` where it does not.

RE2 runs in linear time and several times as fast as ``re``, but has no lookaround and no
backreference. A pattern RE2 refuses still gets an RE2 *superset* (its lookarounds dropped, each
backreference widened to the group it refers to, counts over RE2's limit of 1000 opened up): that
finds the candidate lines fast, and ``re`` confirms on them. Both engines match UTF-8 bytes, and
``^``/``$`` match at every line, as the ruleset's line-by-line reading expects.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any, Protocol

_RE2_MAX_COUNT = 1000
_COUNT = re.compile(r"\{(\d+)(,(\d*))?\}")


class Pattern(Protocol):
    """What the ruleset uses of a compiled pattern (both engines' objects have it)."""

    @property
    def groups(self) -> int: ...

    def finditer(self, text: bytes, pos: int = ..., endpos: int = ...) -> Any: ...

    def search(self, text: bytes, pos: int = ..., endpos: int = ...) -> Any: ...


@functools.cache
def re2_module() -> ModuleType | None:
    """google-re2, imported at the first use (None on a platform with no wheel for it: ``re`` does all)."""
    try:
        import re2
    except ImportError:
        return None
    module: ModuleType = re2
    return module


def _re2_options() -> Any:
    re2 = re2_module()
    assert re2 is not None
    options = re2.Options()
    options.log_errors = False  # a pattern RE2 refuses is expected, not worth a line on stderr
    return options


def python_pattern(source: str, flags: int = 0) -> re.Pattern[bytes]:
    """``source`` (Python syntax) compiled by ``re`` for bytes, with ``^``/``$`` at every line."""
    kept = flags & (re.IGNORECASE | re.DOTALL | re.VERBOSE)
    return re.compile(source.encode(), kept | re.MULTILINE)


def re2_source(source: str, flags: int = 0) -> str:
    """``source`` with its flags written inline, as RE2 takes them (``re.VERBOSE`` is spelled out)."""
    if flags & re.VERBOSE:
        source = _without_verbose_layout(source)
    inline = "m" + ("i" if flags & re.IGNORECASE else "") + ("s" if flags & re.DOTALL else "")
    return f"(?{inline}){source}"


def re2_pattern(source: str) -> Pattern | None:
    """``source`` (from :func:`re2_source`) compiled by RE2 (None when RE2 refuses it or is missing)."""
    re2 = re2_module()
    if re2 is None:
        return None
    try:
        compiled: Pattern = re2.compile(source, _re2_options())
    except re2.error:
        return None
    return compiled


def superset(source: str) -> str:
    """A pattern RE2 can take that matches wherever ``source`` matches (and maybe elsewhere).

    Lookarounds only narrow a match, so they are dropped; a backreference matches what its group
    matched, so it becomes a copy of the group; a count over RE2's limit loses its upper bound.
    """
    groups = _capturing_groups(source)

    def copy(number: int) -> str:
        if number > len(groups):
            return ""
        start, end = groups[number - 1]
        body = _without_lookarounds(source[start + 1 : end - 1])
        body = body[body.index(">") + 1 :] if body.startswith("?P<") else body
        return f"(?:{_with_backreferences(body, lambda _: '(?s:.*)')})"  # a copy's own references: anything

    return _COUNT.sub(_opened_count, _with_backreferences(_without_lookarounds(source), copy))


def compile_literals(values: Sequence[str]) -> Pattern | None:
    """One pattern matching any of ``values`` exactly (the first given wins where two start alike)."""
    if not values:
        return None
    re2 = re2_module()
    if re2 is not None:
        compiled: Pattern = re2.compile("|".join(re2.escape(value) for value in values))
        return compiled
    return re.compile(b"|".join(re.escape(value.encode()) for value in values))


class CandidateFilter:
    """Which of a list of RE2 patterns match a text: RE2's own literal prefilter, in one pass.

    RE2's ``FilteredRE2`` takes from each pattern the literal strings ("atoms") any match must
    contain; one case-insensitive pass finds which atoms occur, and only the patterns they allow are
    tried. A pattern with no such literal is always tried.
    """

    def __init__(self, sources: Sequence[str]) -> None:
        re2 = re2_module()
        assert re2 is not None
        self._filter = re2.Filter()
        for source in sources:
            self._filter.Add(source, _re2_options())
        self._filter.Compile()

    def matching(self, text: bytes) -> list[int]:
        """The indices of the patterns that match somewhere in ``text``."""
        return sorted(self._filter.Match(text) or ())


def _opened_count(match: re.Match[str]) -> str:
    low, comma, high = match.group(1), match.group(2), match.group(3)
    if int(low) <= _RE2_MAX_COUNT and (not comma or not high or int(high) <= _RE2_MAX_COUNT):
        return match.group(0)
    return f"{{{min(int(low), _RE2_MAX_COUNT)},}}"


def _without_lookarounds(source: str) -> str:
    """``source`` with every ``(?=...)``, ``(?!...)``, ``(?<=...)`` and ``(?<!...)`` left out."""
    pieces, done = [], 0
    for index, char in _syntax(source, 0):
        if index < done or char != "(":
            continue
        if source.startswith(("(?=", "(?!", "(?<=", "(?<!"), index):
            pieces.append(source[done:index])
            done = _group_end(source, index + 1) + 1
    return "".join(pieces) + source[done:]


def _capturing_groups(source: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each capturing group's parentheses, in the order of their numbers."""
    groups = []
    for index, char in _syntax(source, 0):
        if char == "(" and (not source.startswith("(?", index) or source.startswith("(?P<", index)):
            groups.append((index, _group_end(source, index + 1) + 1))
    return groups


def _with_backreferences(source: str, replace: Callable[[int], str]) -> str:
    """``source`` with each backreference (``\\1``...) outside a character class replaced by ``replace(number)``."""
    pieces, done = [], 0
    for index, escape in _escapes(source):
        if escape[1:].isdigit() and escape[1] != "0":
            pieces += [source[done:index], replace(int(escape[1:]))]
            done = index + len(escape)
    return "".join(pieces) + source[done:]


def _without_verbose_layout(source: str) -> str:
    """A ``re.VERBOSE`` pattern without its layout: whitespace and ``#`` comments outside classes."""
    kept, index, in_class = [], 0, False
    while index < len(source):
        char = source[index]
        if char == "\\":
            kept.append(source[index : index + 2])
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char.isspace():
            index += 1
            continue
        elif char == "#":
            newline = source.find("\n", index)
            index = len(source) if newline < 0 else newline
            continue
        kept.append(char)
        index += 1
    return "".join(kept)


def _group_end(source: str, start: int) -> int:
    """Where the group whose body starts at ``start`` closes (the index of its ``)``), or the end."""
    depth = 0
    for index, char in _syntax(source, start):
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return index
            depth -= 1
    return len(source)


def _syntax(source: str, start: int) -> Iterator[tuple[int, str]]:
    """The characters of ``source`` from ``start`` that are syntax: not escaped, not in a character class."""
    for index, token, in_class in _tokens(source, start):
        if not in_class and token != "\\" and len(token) == 1:
            yield index, token


def _escapes(source: str) -> Iterator[tuple[int, str]]:
    """The escapes outside character classes: where each starts, and its text (a two-digit reference whole)."""
    for index, token, in_class in _tokens(source, 0):
        if not in_class and token.startswith("\\"):
            yield index, token


def _tokens(source: str, start: int) -> Iterator[tuple[int, str, bool]]:
    """Each escape or character of ``source`` from ``start``, and whether it is part of a character class."""
    index, members_from = start, -1  # where the current class's members start; -1 outside a class
    while index < len(source):
        char = source[index]
        if char == "\\":
            size = 3 if source[index + 1 : index + 3].isdigit() else 2
            yield index, source[index : index + size], members_from >= 0
            index += size
            continue
        if members_from >= 0:
            yield index, char, True
            if char == "]" and index > members_from:  # a "]" first in a class is one of its members
                members_from = -1
        elif char == "[":
            yield index, char, True
            members_from = index + (2 if source.startswith("[^", index) else 1)
        else:
            yield index, char, False
        index += 1
