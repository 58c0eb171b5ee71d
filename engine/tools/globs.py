"""Glob patterns for file names and paths, as the search tools accept them.

Syntax: ``*`` (any characters except ``/``), ``?`` (one character except ``/``), ``[abc]``/``[!abc]``,
``{a,b}`` alternatives, ``**`` as a whole path segment (any number of directories), and ``\\`` to
escape. A pattern without ``/`` matches a file's name at any depth (``*.py`` finds every Python file,
as in ``.gitignore`` and ``rg --glob``); a pattern with ``/`` matches the whole path relative to the
search root (``src/*.ts`` only finds files directly in ``src``). ``*`` also matches names starting
with a dot.
"""

from __future__ import annotations

import re

_MAGIC = re.compile(r"[*?\[{]")


class GlobMatcher:
    """A compiled glob pattern; :meth:`matches` tests ``/``-separated paths relative to the search root."""

    def __init__(self, pattern: str, *, anchored: bool = False) -> None:
        """Compile ``pattern``; with ``anchored`` it always matches whole paths, even without ``/``.

        Raises ``ValueError`` when the pattern cannot be compiled.
        """
        pattern = pattern.strip()
        while pattern.startswith("./"):
            pattern = pattern[2:]
        pattern = pattern.lstrip("/")
        self.pattern = pattern
        self._name_only = not anchored and "/" not in pattern
        try:
            self._regex = re.compile(_translate(pattern) + r"\Z", re.DOTALL)
        except re.error as exc:  # e.g. a character range such as [z-a]
            raise ValueError(f"Invalid glob pattern {pattern!r}: {exc}") from exc

    def matches(self, rel_path: str) -> bool:
        """Whether the file at ``rel_path`` matches."""
        subject = rel_path.rsplit("/", 1)[-1] if self._name_only else rel_path
        return self._regex.match(subject) is not None


def split_base(pattern: str) -> tuple[str, str]:
    """Split the literal leading directories off a pattern: ``/src/app/**/*.py`` -> (``/src/app``, ``**/*.py``).

    Returns ``("", pattern)`` when the first segment already has a wildcard.
    """
    segments = pattern.split("/")
    literal = 0
    while literal < len(segments) - 1 and not _MAGIC.search(segments[literal]):
        literal += 1
    base = "/".join(segments[:literal])
    if pattern.startswith("/") and not base:
        base = "/"
    return base, "/".join(segments[literal:])


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            i = _star(pattern, i, out)
            continue
        if char == "?":
            out.append("[^/]")
        elif char == "[":
            end = _closing_bracket(pattern, i)
            if end < 0:
                out.append(re.escape(char))
            else:
                out.append(_char_class(pattern[i + 1 : end]))
                i = end
        elif char == "{":
            end = _closing_brace(pattern, i)
            if end < 0:
                out.append(re.escape(char))
            else:
                alternatives = _split_alternatives(pattern[i + 1 : end])
                out.append("(?:" + "|".join(_translate(alt) for alt in alternatives) + ")")
                i = end
        elif char == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _star(pattern: str, i: int, out: list[str]) -> int:
    """Translate the run of ``*`` starting at ``i``; returns the index after what it consumed."""
    j = i
    while j < len(pattern) and pattern[j] == "*":
        j += 1
    whole_segment = (i == 0 or pattern[i - 1] == "/") and (j == len(pattern) or pattern[j] == "/")
    if j - i >= 2 and whole_segment:
        if j == len(pattern):
            out.append(".*")
            return j
        out.append("(?:.*/)?")
        return j + 1
    out.append("[^/]*")
    return j


def _closing_bracket(pattern: str, start: int) -> int:
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    end = pattern.find("]", i)
    return end


def _char_class(body: str) -> str:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    escaped = body.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"[^/{escaped}]" if negate else f"[{escaped}]"


def _closing_brace(pattern: str, start: int) -> int:
    depth = 0
    for i in range(start, len(pattern)):
        if pattern[i] == "{":
            depth += 1
        elif pattern[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_alternatives(body: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in body:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current.append(char)
    parts.append("".join(current))
    return parts
