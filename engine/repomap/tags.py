"""One file's tags: the definitions it makes and the names it references, read from its syntax tree."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from msgspec import Struct

from engine.repomap.languages import LanguageSpec, grammar

if TYPE_CHECKING:
    from tree_sitter import Node

SIGNATURE_CHARS = 160
"""A definition's signature line is cut to this many characters."""
_KIND_PRIORITY = {"method": 0, "class": 1, "interface": 1, "type": 2, "function": 3}
"""When two patterns match one node (a function inside a class), the more specific kind wins."""


class Definition(Struct, frozen=True, array_like=True):
    """A function, class, method or type a file defines."""

    name: str
    kind: str
    """``class``, ``function``, ``method``, ``interface`` or ``type``."""
    line: int
    """1-based."""
    signature: str
    """The source line the definition starts on, stripped (cut at :data:`SIGNATURE_CHARS`)."""


class FileTags(Struct, frozen=True, array_like=True):
    """What one file defines and which names it uses (other than the names of its own definitions)."""

    definitions: tuple[Definition, ...] = ()
    references: dict[str, int] = {}
    """Name -> how many times the file uses it."""


def extract_tags(spec: LanguageSpec, source: bytes) -> FileTags:
    """The tags of ``source``, a file of the language ``spec`` (a syntax error leaves what could be parsed)."""
    from tree_sitter import Parser, QueryCursor

    found = grammar(spec)
    root = Parser(found.language).parse(source).root_node
    lines = source.split(b"\n")
    definitions: dict[int, Definition] = {}
    name_starts: set[int] = set()
    for _, captures in QueryCursor(found.definitions).matches(root):
        definition = _definition(captures, spec, lines)
        if definition is None:
            continue
        node, made = definition
        name_starts.add(captures["name"][0].start_byte)
        kept = definitions.get(node.start_byte)
        if kept is None or _KIND_PRIORITY[made.kind] < _KIND_PRIORITY[kept.kind]:
            definitions[node.start_byte] = made
    references: Counter[str] = Counter()
    for node in QueryCursor(found.references).captures(root).get("reference", ()):
        if node.start_byte not in name_starts and node.text:
            references[node.text.decode("utf-8", errors="replace")] += 1
    ordered = sorted(definitions.values(), key=lambda item: item.line)
    return FileTags(tuple(ordered), dict(references))


def _definition(
    captures: dict[str, list[Node]], spec: LanguageSpec, lines: list[bytes]
) -> tuple[Node, Definition] | None:
    names = captures.get("name")
    kinds = [key for key in captures if key.startswith("definition.")]
    if not names or not kinds or not names[0].text:
        return None
    node = captures[kinds[0]][0]
    kind = kinds[0].removeprefix("definition.")
    if kind == "function" and _inside_container(node, spec.containers):
        kind = "method"
    row = node.start_point.row
    text = lines[row].decode("utf-8", errors="replace").strip() if row < len(lines) else ""
    name = names[0].text.decode("utf-8", errors="replace")
    return node, Definition(name, kind, row + 1, text[:SIGNATURE_CHARS])


def _inside_container(node: Node, containers: frozenset[str]) -> bool:
    """Whether ``node`` sits directly in a class body or an ``impl`` block (a method, not a nested function)."""
    parent = node.parent
    for _ in range(3):  # the definition, its decorator wrapper, the body, the container
        if parent is None:
            return False
        if parent.type in containers:
            return True
        if "function" in parent.type:  # nested in a function: a local helper
            return False
        parent = parent.parent
    return False
