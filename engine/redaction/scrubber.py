"""Known secret values kept out of what hive stores: session files, MCP server logs, the memory database.

A :class:`Scrubber` replaces exact values only (the secret variables of hive's environment, the
model's API key, the expanded secrets of an MCP server's entry), each by its marker
``[redacted: $NAME]``. A text is first searched for each value as a plain substring (the C
``in``, a few microseconds for a 30 KB line); only a text that holds one is rewritten, by one
compiled alternation of the escaped values, longest first. A text holding none comes back as it is. Each
value is also matched as JSON spells it (a value with a quote or a backslash, in a session line).
Values shorter than :data:`engine.redaction.values.MIN_LENGTH` are never replaced. Unlike the
result guard, no rule runs here: what is stored is the person's own, only the known values go.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Mapping

from engine.redaction.marker import marker
from engine.redaction.values import secret_values


class Scrubber:
    """Replaces every known secret value in a text with its marker (a text without any is returned as it is)."""

    def __init__(self, values: tuple[tuple[str, str], ...]) -> None:
        """``values``: ``(kind, value)`` pairs as :func:`engine.redaction.values.secret_values` gives them."""
        self._markers: dict[str, str] = {}
        for kind, value in values:
            for spelling in (value, json.dumps(value, ensure_ascii=False)[1:-1]):
                self._markers.setdefault(spelling, marker(kind))
        spellings = sorted(self._markers, key=len, reverse=True)
        self._spellings = tuple(spellings)
        self._pattern = re.compile("|".join(map(re.escape, spellings))) if spellings else None
        self.longest = len(spellings[0]) if spellings else 0
        """The length of the longest value: a text cut into pieces keeps this much of a piece's end for the next."""

    def __repr__(self) -> str:
        return f"Scrubber({len(self._markers)} spellings)"  # never the values

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, known: Iterable[tuple[str, str | None]] = ()
    ) -> Scrubber:
        """The scrubber for the secret variables of ``environ`` (hive's own by default) and the ``known`` values."""
        return scrubber_for(secret_values(os.environ if environ is None else environ, known))

    def __bool__(self) -> bool:
        return self._pattern is not None

    def __call__(self, text: str) -> str:
        """``text`` with every known value replaced by its marker."""
        if self._pattern is None or not any(spelling in text for spelling in self._spellings):
            return text
        return self._pattern.sub(self._replace, text)

    def _replace(self, match: re.Match[str]) -> str:
        return self._markers[match.group(0)]


@functools.cache
def scrubber_for(values: tuple[tuple[str, str], ...]) -> Scrubber:
    """The scrubber of ``values`` (one per set of values, compiled once for the process)."""
    return Scrubber(values)
