"""YAML configuration text parsed once, under limits a hostile file cannot get around.

A project hive may not trust writes these files, so the loader refuses what costs without bound:
aliases (a 400-byte "billion laughs" file expands to billions of nodes) and nesting deeper than
:data:`~engine.config.files.MAX_DEPTH` (which also keeps every walk of the node tree far from
Python's recursion limit). Duplicate keys, which PyYAML settles silently by keeping the last, are
an error too. One composed node tree gives both the data and the line of every key. Imported only
when there is a file to read: PyYAML takes some 18 ms to import.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from pathlib import Path
from typing import Any, Protocol, cast

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from engine.config.files import DEPTH_PROBLEM, MAX_DEPTH
from engine.config.validation import KeyPath
from engine.errors import ConfigError

ALIAS_PROBLEM = "YAML aliases (*name) are not allowed in hive's configuration files"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_LIBYAML_DEPTH_PROBLEM = "exceeded maximum nesting depth"


def parse_yaml(path: Path, text: str) -> tuple[Any, dict[KeyPath, int]]:
    """The data of the YAML ``text`` read from ``path`` and the 1-based line of every key path in it."""
    try:
        node, data = _load(text)
    except Refused as refused:
        where = f"{path}:{refused.line}" if refused.line else str(path)
        raise ConfigError(f"{where}: {refused.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}{line}: invalid YAML: {problem}") from None
    except RecursionError:  # the depth cap should come first; this is the net under it
        raise ConfigError(f"{path}: {DEPTH_PROBLEM}") from None
    return data, key_lines(node)


def load_yaml(text: str, *, duplicate_keys: bool = False) -> Any:
    """The data of YAML ``text`` (a frontmatter, say) under the same limits; raises ``yaml.YAMLError``.

    A refusal (an alias, deep nesting, a duplicate key) is a :class:`Refused`, whose text gives its line.
    ``duplicate_keys``: let a repeated key pass, the last one winning, as ordinary YAML readers do.
    """
    return _load(text, duplicate_keys=duplicate_keys)[1]


def _load(text: str, *, duplicate_keys: bool = False) -> tuple[yaml.Node | None, Any]:
    loader = _loader(text, duplicate_keys=duplicate_keys)
    try:
        node = loader.get_single_node()
        return node, None if node is None else loader.construct_document(node)
    except yaml.MarkedYAMLError as error:
        if error.problem != _LIBYAML_DEPTH_PROBLEM:
            raise
        # libyaml stops a long run of '[' or '{' (over 1,000) before the composer counts 32 of them
        line = error.problem_mark.line + 1 if error.problem_mark is not None else 0
        raise Refused(line, DEPTH_PROBLEM) from None
    finally:
        loader.dispose()


def json_key_lines(text: str) -> dict[KeyPath, int]:
    """The lines of the keys of JSON text already parsed (JSON reads as YAML); empty when that fails."""
    loader = _loader(text)
    try:
        return key_lines(loader.get_single_node())
    except (yaml.YAMLError, RecursionError):
        return {}
    finally:
        loader.dispose()


def key_lines(node: yaml.Node | None) -> dict[KeyPath, int]:
    """The 1-based line of every key path under a composed YAML ``node`` (a tree: aliases are refused)."""
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _collect_lines(node, (), lines)
    return lines


def _collect_lines(node: yaml.Node, prefix: KeyPath, lines: dict[KeyPath, int]) -> None:
    lines[prefix] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = (*prefix, str(key_node.value))
            _collect_lines(value_node, key, lines)
            lines[key] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_lines(item, (*prefix, index), lines)


class Refused(yaml.YAMLError):
    """Something the loader will not read: an alias, deep nesting or a duplicate key, at a 1-based line (0: unknown)."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem

    def __str__(self) -> str:
        return f"line {self.line}: {self.problem}" if self.line else self.problem


class _Limits(Composer, SafeConstructor):
    """Refuses aliases and deep nesting as a document is composed, and duplicate keys as it is constructed."""

    _depth = 0
    _duplicate_keys = False

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):  # type: ignore[attr-defined]  # the parser half of the loader has it
            raise Refused(self._next_line(), ALIAS_PROBLEM)
        if self._depth >= MAX_DEPTH:
            raise Refused(self._next_line(), DEPTH_PROBLEM)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def _next_line(self) -> int:
        event: yaml.Event = self.peek_event()  # type: ignore[attr-defined]  # the parser half of the loader has it
        return event.start_mark.line + 1 if event.start_mark is not None else 0

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        if isinstance(node, yaml.MappingNode) and not self._duplicate_keys:
            self._refuse_duplicate_keys(node)
        return super().construct_mapping(node, deep=deep)

    def _refuse_duplicate_keys(self, node: yaml.MappingNode) -> None:
        first_lines: dict[Hashable, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:  # merged keys may be overridden: that is what a merge is for
                continue
            key = self.construct_object(key_node)
            if not isinstance(key, Hashable):
                continue  # the constructor itself reports an unhashable key
            line = key_node.start_mark.line + 1
            if key in first_lines:
                raise Refused(line, f"the key {key!r} appears twice (first on line {first_lines[key]})")
            first_lines[key] = line


class _PureLoader(_Limits, yaml.SafeLoader):
    """The limits on PyYAML's pure-Python reader (where libyaml is not installed)."""

    def __init__(self, text: str, *, duplicate_keys: bool = False) -> None:
        super().__init__(text)
        self._duplicate_keys = duplicate_keys

    def fetch_flow_collection_start(self, TokenClass: type[yaml.Token]) -> None:
        # The scanner looks up to 1024 characters ahead for each open '[' or '{' (a possible key), and
        # that look-ahead costs quadratically: a long line of them is refused here, before it is scanned.
        if self.flow_level >= MAX_DEPTH:
            raise Refused(int(self.line) + 1, DEPTH_PROBLEM)
        super().fetch_flow_collection_start(TokenClass)


class _Reader(Protocol):
    """What :func:`_load` asks of a loader."""

    def get_single_node(self) -> yaml.Node | None: ...
    def construct_document(self, node: yaml.Node) -> Any: ...
    def dispose(self) -> None: ...


def _loader(text: str, *, duplicate_keys: bool = False) -> _Reader:
    """A loader for ``text``: on libyaml's parser where PyYAML was built with it (some 4x faster), else pure Python."""
    if yaml.__with_libyaml__:
        fast: Any = _fast_loader_class()
        return cast(_Reader, fast(text, duplicate_keys=duplicate_keys))
    return cast(_Reader, _PureLoader(text, duplicate_keys=duplicate_keys))


@cache
def _fast_loader_class() -> type:
    from yaml.cyaml import CParser  # type: ignore[attr-defined]  # only where PyYAML was built with libyaml

    class _FastLoader(_Limits, CParser, Resolver):
        """The limits on libyaml's events: the C parser reads the text, the composing stays in Python."""

        def __init__(self, text: str, *, duplicate_keys: bool = False) -> None:
            CParser.__init__(self, text)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self._duplicate_keys = duplicate_keys

    return _FastLoader
