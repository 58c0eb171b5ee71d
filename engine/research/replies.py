"""Reading the JSON a model was asked for, forgiving the usual wrapping (code fences, words around it).

Nothing here raises: a reply that holds no usable JSON gives a value that says so.
"""

from __future__ import annotations

import json
import re
from typing import Any

from msgspec import Struct

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class Judgement(Struct, frozen=True, kw_only=True):
    """The judge's verdict: how sufficient the notes are (0..1) and what is missing."""

    score: float
    gaps: tuple[str, ...] = ()
    next_queries: tuple[str, ...] = ()
    readable: bool = True
    """False when the reply held no usable JSON; the score is then 0 (insufficient)."""


def parse_judgement(reply: str) -> Judgement:
    """The verdict in ``reply``; an unreadable one counts as insufficient (score 0, one gap saying why)."""
    found = json_value(reply)
    if not isinstance(found, dict) or not _is_number(found.get("score")):
        return Judgement(score=0.0, gaps=("the judge's reply was not the JSON asked for",), readable=False)
    score = min(1.0, max(0.0, float(found["score"])))
    return Judgement(score=score, gaps=_strings(found.get("gaps")), next_queries=_strings(found.get("next_queries")))


def parse_queries(reply: str, limit: int) -> tuple[str, ...]:
    """Up to ``limit`` distinct queries from a JSON list (or ``{"queries": [...]}``); () when there is none."""
    found = json_value(reply)
    if isinstance(found, dict):
        found = found.get("queries")
    queries: list[str] = []
    for query in _strings(found):
        if query.lower() not in (q.lower() for q in queries):
            queries.append(query)
    return tuple(queries[:limit])


def json_value(reply: str) -> Any:
    """The first JSON object or list in ``reply`` (inside a code fence or not); None if there is none."""
    candidates = [m.group(1) for m in _FENCE.finditer(reply)] + [reply]
    decoder = json.JSONDecoder()
    for text in candidates:
        for start, char in enumerate(text):
            if char not in "[{":
                continue
            try:
                value, _ = decoder.raw_decode(text, start)
            except ValueError:
                continue
            return value
    return None


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(" ".join(item.split()) for item in value if isinstance(item, str) and item.strip())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
