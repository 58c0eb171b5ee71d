"""The keyword retriever: how well a request's words cover a tool's name and description.

Text is split into *tokens*: runs of letters or digits, camelCase and snake_case split apart,
lowercased (``getPullRequest`` and ``get_pull_request`` both give ``get pull request``).

For a query ``Q`` (its distinct tokens) and a tool:

- ``N`` is the set of distinct tokens of the tool's name, its ``mcp__`` prefix removed (the server
  name stays: ``mcp__github__create_issue`` gives ``{github, create, issue}``).
- ``D`` is the set of distinct tokens of the description, less a short list of stop words.
- A name token ``n`` *matches* a query token ``q`` when ``n == q``, or when both have at least 3
  characters and one contains the other (``issue`` matches ``issues``; ``pr`` matches only ``pr``).
- name coverage = |{n in N : some q in Q matches n}| / |N|
- description coverage = |D ∩ Q| / |D| (exact tokens)
- score = 0.75 * name coverage + 0.25 * description coverage (0 for an empty ``N`` or ``D`` part).

Both coverages are shares of the *tool's* tokens, so the score never depends on how long the query
is: words that match nothing change nothing, and a repeated word counts once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from msgspec import Struct

from engine.tools.base import ToolSpec

NAME_WEIGHT = 0.75
DESCRIPTION_WEIGHT = 0.25
MIN_SUBSTRING_LENGTH = 3
STOP_WORDS = frozenset(
    "a an and are as at be by for from if in into is it its of on or that the this to was when with".split()
)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def tokens(text: str) -> list[str]:
    """The lowercase tokens of ``text``, in order (camelCase, snake_case and punctuation split)."""
    return [word.lower() for word in _WORD.findall(text)]


def name_tokens(name: str) -> frozenset[str]:
    """The distinct tokens of a tool name, without the ``mcp__`` or ``agent_`` prefix its kind shares."""
    return frozenset(tokens(name.removeprefix("mcp__").removeprefix("agent_")))


def description_tokens(description: str) -> frozenset[str]:
    """The distinct tokens of a description, stop words left out."""
    return frozenset(tokens(description)) - STOP_WORDS


def name_token_matches(name_token: str, query_token: str) -> bool:
    """Equal, or (both at least 3 characters) one contains the other."""
    if name_token == query_token:
        return True
    if min(len(name_token), len(query_token)) < MIN_SUBSTRING_LENGTH:
        return False
    return name_token in query_token or query_token in name_token


def name_coverage(name: frozenset[str], query: frozenset[str]) -> float:
    """The share of the name's tokens some query token matches."""
    if not name:
        return 0.0
    return sum(1 for n in name if any(name_token_matches(n, q) for q in query)) / len(name)


def description_coverage(description: frozenset[str], query: frozenset[str]) -> float:
    """The share of the description's tokens that are also query tokens."""
    if not description:
        return 0.0
    return len(description & query) / len(description)


class _Terms(Struct, frozen=True):
    name: frozenset[str]
    description: frozenset[str]


class KeywordRetriever:
    """Scores tools against a query as the module docstring defines; a tool's tokens are computed once."""

    def __init__(self) -> None:
        self._terms: dict[tuple[str, str], _Terms] = {}

    def scores(self, query: str, specs: Iterable[ToolSpec]) -> dict[str, float]:
        """Each tool's score for ``query``, by name."""
        words = frozenset(tokens(query))
        return {spec.name: self.score(words, spec) for spec in specs}

    def score(self, query: frozenset[str], spec: ToolSpec) -> float:
        """``0.75 * name coverage + 0.25 * description coverage`` for one tool."""
        terms = self._terms_of(spec)
        return NAME_WEIGHT * name_coverage(terms.name, query) + DESCRIPTION_WEIGHT * description_coverage(
            terms.description, query
        )

    def _terms_of(self, spec: ToolSpec) -> _Terms:
        key = (spec.name, spec.description)
        terms = self._terms.get(key)
        if terms is None:
            terms = self._terms[key] = _Terms(name_tokens(spec.name), description_tokens(spec.description))
        return terms
