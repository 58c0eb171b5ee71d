"""Read YAML or JSON configuration files into typed records, with errors naming the file and line.

A file that exists but is not valid is always an error, never a silent fallback to defaults.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.errors import ConfigError
from engine.validation import Invalid, KeyPath, convert, required_keys

if TYPE_CHECKING:
    import yaml
    from pydantic import ValidationError

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


def read_document(path: Path) -> tuple[Any, dict[KeyPath, int]]:
    """The parsed document and the 1-based line of every key path in it."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if path.suffix == ".json":
        return _read_json(path, text), {}
    return _read_yaml(path, text)


def _read_json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None


def _read_yaml(path: Path, text: str) -> tuple[Any, dict[KeyPath, int]]:
    import yaml  # only when there is a file to read: most runs have none

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}{line}: invalid YAML: {problem}") from None
    return data, key_lines(node)


def json_key_lines(path: Path) -> dict[KeyPath, int]:
    """The lines of the keys of a JSON file (JSON reads as YAML for this); empty when that fails."""
    import yaml

    try:
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (yaml.YAMLError, OSError, UnicodeDecodeError):
        return {}
    return key_lines(node)


def key_lines(node: yaml.Node | None) -> dict[KeyPath, int]:
    """The 1-based line of every key path under a composed YAML ``node``."""
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _collect_lines(node, (), lines)
    return lines


def _collect_lines(node: yaml.Node, prefix: KeyPath, lines: dict[KeyPath, int]) -> None:
    import yaml

    lines[prefix] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = (*prefix, str(key_node.value))
            _collect_lines(value_node, key, lines)
            lines[key] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_lines(item, (*prefix, index), lines)


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
_SECTION_EXPECTED = re.compile(r"valid dictionary or instance of \w+")


def _pydantic_problem(kind: str, text: str) -> str:
    """A pydantic model's message (plugin files) in the words of :class:`Invalid` problems."""
    if kind == "extra_forbidden":
        return "unknown key"
    if kind in ("model_type", "dict_type"):
        return "should be a mapping"
    if kind == "value_error":
        return text.removeprefix("Value error, ")
    return _SECTION_EXPECTED.sub("mapping", text)


def describe_errors(path: Path, exc: ValidationError, lines: dict[KeyPath, int]) -> str:
    """One message listing every problem pydantic found as ``file:line: key: problem``, as :func:`check_document` does."""
    problems = (Invalid(tuple(error["loc"]), _pydantic_problem(error["type"], error["msg"])) for error in exc.errors())
    return "\n".join(text for _, text in (_describe(path, problem, lines) for problem in problems))
