"""Read YAML or JSON configuration files into typed records, with errors naming the file and line.

A file that exists but is not valid is always an error, never a silent fallback to defaults. A
project hive may not trust writes some of these files, so they are read under limits: at most
:data:`CONFIG_FILE_LIMIT` bytes of a regular file, no duplicate keys, no nesting deeper than
:data:`MAX_DEPTH`, no YAML aliases.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from engine.config.validation import Invalid, KeyPath, convert, required_keys
from engine.errors import ConfigError
from engine.safe_read import UnsafeFile, read_bounded

T = TypeVar("T")


def check_document(path: Path, data: Any, lines: dict[KeyPath, int], record: type[T]) -> T:
    """``data``, read from ``path``, as a ``record``; a misfit is an error listing ``file:line: key: problem``.

    msgspec stops at a record's first problem, so each top-level key is checked on its own as well:
    the message names the first problem of every key that has one.
    """
    try:
        return convert(data, record)
    except Invalid as first:
        problems = [first, *_each_key_problem(data, record)] if isinstance(data, dict) else [first]
    described = sorted(dict.fromkeys(_describe(path, problem, lines) for problem in problems))
    raise ConfigError("\n".join(text for _, text in described))


def _each_key_problem(data: dict[str, Any], record: type[Any]) -> list[Invalid]:
    problems = [Invalid((name,), "required but missing") for name in required_keys(record) if name not in data]
    for key, value in data.items():
        try:
            convert({key: value}, record)
        except Invalid as problem:
            if problem.loc[:1] == (key,):  # alone, the key may lack a required neighbour: not its problem
                problems.append(problem)
    return problems


def _describe(path: Path, problem: Invalid, lines: dict[KeyPath, int]) -> tuple[int, str]:
    """The problem's line (0 when unknown) and its ``file:line: key: problem`` text."""
    line = line_of(lines, problem.loc)
    where = f"{path}:{line}" if line else str(path)
    return line or 0, f"{where}: {problem.key or '(top level)'}: {_problem(problem)}"


def _problem(exc: Invalid) -> str:
    if exc.problem == "unknown key" and exc.loc:
        return KNOWN_ELSEWHERE.get(str(exc.loc[-1]), "unknown key (check the spelling)")
    if exc.problem.startswith("should be a mapping"):
        return "should be a mapping (indented key: value lines)"
    return exc.problem


CONFIG_FILE_LIMIT = 256 * 1024
"""The most hive reads of one configuration file; hive's own are a few KiB."""
MAX_DEPTH = 32
"""How deeply values may nest in a configuration file (the top value is level 1); hive's own need six."""
DEPTH_PROBLEM = f"nested too deeply (more than {MAX_DEPTH} levels)"


def read_document(path: Path) -> tuple[Any, dict[KeyPath, int]]:
    """The parsed document and the 1-based line of every key path in it (JSON's too).

    The file is read through :func:`~engine.safe_read.read_bounded` (a regular file of at most
    :data:`CONFIG_FILE_LIMIT`) and parsed once: duplicate keys and nesting deeper than :data:`MAX_DEPTH`
    are errors, and so are YAML aliases (see :mod:`engine.config.yaml_reader`).
    """
    text = read_config_text(path, CONFIG_FILE_LIMIT)
    from engine.config import yaml_reader  # imports yaml: only when there is a file to read, and most runs have none

    if path.suffix == ".json":
        return parse_json(path, text), yaml_reader.json_key_lines(text)
    return yaml_reader.parse_yaml(path, text)


def read_config_text(path: Path, limit: int) -> str:
    """The UTF-8 text of ``path`` with universal newlines, read under ``limit`` bytes; ``ConfigError`` naming the file."""
    try:
        data = read_bounded(path, limit=limit)
    except UnsafeFile as exc:
        raise ConfigError(f"{path}: {exc.reason}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def parse_json(path: Path, text: str) -> Any:
    """The data of the JSON ``text`` read from ``path``; duplicate keys and deep nesting are errors."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except _DuplicateKey as exc:
        raise ConfigError(f"{path}: the key {exc.key!r} appears twice in one object") from None
    except RecursionError:
        raise ConfigError(f"{path}: {DEPTH_PROBLEM}") from None
    if _deeper_than(data, MAX_DEPTH):
        raise ConfigError(f"{path}: {DEPTH_PROBLEM}")
    return data


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping: dict[str, Any] = {}
    for key, value in pairs:
        if key in mapping:
            raise _DuplicateKey(key)
        mapping[key] = value
    return mapping


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether any value in ``data`` sits more than ``limit`` levels deep (the top value is level 1)."""
    pending: list[tuple[Any, int]] = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            pending.extend((child, depth + 1) for child in value.values())
        elif isinstance(value, list):
            pending.extend((child, depth + 1) for child in value)
    return False


def line_of(lines: dict[KeyPath, int], loc: KeyPath) -> int | None:
    """The line of the deepest known key along ``loc``."""
    for end in range(len(loc), -1, -1):
        line = lines.get(tuple(loc[:end]))
        if line is not None:
            return line
    return None


KNOWN_ELSEWHERE = {
    "mcp_servers": "MCP servers are not settings: they go in .ironhive/plugins.yaml (or .mcp.json)",
    "mcpServers": "MCP servers are not settings: they go in .ironhive/plugins.yaml (or .mcp.json)",
    "permissions": "permission rules go in .ironhive/permissions.yaml, not in the settings",
}


def describe_problem(path: Path, problem: Invalid, lines: dict[KeyPath, int]) -> str:
    """``problem`` found in the file at ``path`` as ``file:line: key: problem``, as :func:`check_document` says it."""
    return _describe(path, problem, lines)[1]
