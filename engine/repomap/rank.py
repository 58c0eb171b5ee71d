"""Ranking: a definition matters as much as the other files use its name.

A definition's score is the sum, over every *other* file that uses its name, of the square root of how
many times that file uses it, divided by the number of definitions sharing the name, and by ten for a
plain short lowercase word. Names are matched as text (no types are resolved): the square root keeps one
file that calls a helper fifty times from outranking a type ten files use; the division keeps a name
several files define (``run``, ``__init__``) from lifting each of them; and a word such as ``path``,
``name`` or ``get`` is as often a local variable or another library's method as it is the project's
definition, where ``load_config``, ``ToolResult`` or ``parseHeader`` rarely is. A plain count, not a graph
rank: it is cheap for thousands of files, the same on every run, and says in one sentence why a definition
comes first.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from msgspec import Struct

from engine.repomap.tags import Definition, FileTags


class Ranked(Struct, frozen=True):
    """A definition, the file that makes it, and its score."""

    path: str
    definition: Definition
    score: float


def rank_definitions(files: Mapping[str, FileTags]) -> list[Ranked]:
    """Every definition of ``files`` (path -> tags), best first; ties go by path, then line."""
    users: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for path, tags in files.items():
        for name, count in tags.references.items():
            users[name].append((path, count))
    makers: dict[str, int] = defaultdict(int)
    for tags in files.values():
        for definition in tags.definitions:
            makers[definition.name] += 1
    ranked = [
        Ranked(path, definition, _score(path, definition, users.get(definition.name, ()), makers[definition.name]))
        for path, tags in files.items()
        for definition in tags.definitions
    ]
    ranked.sort(key=lambda item: (-item.score, item.path, item.definition.line))
    return ranked


GENERIC_WEIGHT = 0.1
"""What a plain short lowercase word's uses count for, against a compound or capitalised name's."""
SPECIFIC_LENGTH = 8
"""A name this long counts fully even when it is one lowercase word."""


def _score(path: str, definition: Definition, users: Sequence[tuple[str, int]], makers: int) -> float:
    uses = sum(math.sqrt(count) for user, count in users if user != path)
    return uses * _specificity(definition.name) / makers


def _specificity(name: str) -> float:
    """1 for a name that is unlikely to mean something else (compound, capitalised or long); less for a plain word."""
    bare = name.strip("_")
    compound = "_" in bare or any(letter.isupper() for letter in bare)
    return 1.0 if compound or len(bare) >= SPECIFIC_LENGTH else GENERIC_WEIGHT
