"""Reading and checking one permissions file: its models, the problems named by file and line, its layer of rules.

Rules may carry examples that are checked as the file loads, so a rule that does not do what its
author meant is caught at once. :mod:`engine.policy.config` imports this module only when a file exists.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from msgspec import Meta, Struct, field

from engine.config.files import check_document, line_of, read_document
from engine.config.validation import KeyPath, StrictRecord
from engine.errors import ConfigError
from engine.policy.config import GuardSettings, PermissionConfig
from engine.policy.defaults import DEFAULT_SOURCE, default_layer
from engine.policy.examples import example_problem
from engine.policy.guard_entries import GuardsSection, combine_guards
from engine.policy.patterns import PatternError, command_pattern, name_regex, path_regex
from engine.policy.rules import CATEGORIES, Action, Category, Layer, Rule, RuleBook


class RuleExamples(StrictRecord, frozen=True):
    """Inputs the rule must match and inputs it must not match."""

    match: tuple[str, ...] = ()
    not_match: tuple[str, ...] = ()


class RuleEntry(StrictRecord, frozen=True):
    """One rule as written in the file."""

    pattern: Annotated[str, Meta(min_length=1)]
    action: Action
    priority: int = 0
    reason: str = ""
    examples: RuleExamples | None = None
    ignore_case: bool = False
    """Path and name patterns: match letters whatever their case."""
    sandboxed_only: bool = False
    """The rule counts only when shell commands run in the OS sandbox."""
    exact: bool = False
    """The pattern is taken literally: one path, one command (its words) or one name, never a wildcard."""


class PermissionsSection(StrictRecord, frozen=True):
    """The ``permissions:`` section."""

    read: tuple[RuleEntry, ...] = ()
    edit: tuple[RuleEntry, ...] = ()
    bash: tuple[RuleEntry, ...] = ()
    external_directory: tuple[RuleEntry, ...] = ()
    mcp_tools: tuple[RuleEntry, ...] = ()
    tools: tuple[RuleEntry, ...] = ()
    read_only_tools: tuple[str, ...] = ()
    mcp_read_only: Action | None = None
    """The action for MCP tools their server marks read-only, when no mcp_tools rule matches."""
    default_action: Action | None = None
    ask_before_delete: bool | None = None
    include_defaults: bool = False
    """Keep the built-in rules as a layer under this file's rules."""


class PermissionsFile(StrictRecord, frozen=True):
    """A whole permissions file: ``permissions:`` is required."""

    permissions: PermissionsSection
    guards: GuardsSection = field(default_factory=GuardsSection)


def combined_permissions(files: list[Path], saved: list[Path], *, sandboxed: bool) -> PermissionConfig:
    """The rules of the user's and the project's ``files`` (in that order), under the ``saved`` answers.

    The built-in defaults are a layer when no file replaces them: with ``include_defaults``, or with
    only saved answers. See :func:`engine.policy.config.load_permissions`.
    """
    layers: list[Layer] = []
    sources: list[Path] = []
    guards = GuardSettings()
    for path in files:
        parsed = load_permissions_file(path)
        layers.append(file_layer(path, parsed.file, parsed.lines, sandboxed))
        guards, _ = combine_guards(guards, parsed.file.guards, str(path))
        sources.append(path)
        if parsed.file.permissions.include_defaults and not any(lay.source == DEFAULT_SOURCE for lay in layers):
            layers.append(default_layer(sandboxed=sandboxed))
    if not sources:
        layers.append(default_layer(sandboxed=sandboxed))
    for local in saved:  # saved answers sit on top and never replace the defaults
        parsed = load_permissions_file(local)
        layers.insert(0, file_layer(local, parsed.file, parsed.lines, sandboxed))
        guards, _ = combine_guards(guards, parsed.file.guards, str(local))
        sources.append(local)
    book = RuleBook(tuple(layers))
    return PermissionConfig(book=book, sources=tuple(sources), guards=guards, sandboxed=sandboxed)


class ParsedFile(Struct, frozen=True):
    """A validated file and the line of every key in it."""

    file: PermissionsFile
    lines: dict[KeyPath, int]


def load_permissions_file(path: Path) -> ParsedFile:
    """Read and check one file; raises ``ConfigError`` naming the file and line of every problem."""
    data, lines = read_document(path)
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}:1: missing the 'permissions:' section; the smallest valid file is\n"
            "  permissions:\n    include_defaults: true\n"
            "(or delete the file to use the built-in defaults; docs/permissions.md has examples)"
        )
    parsed = check_document(path, data, lines, PermissionsFile)
    problems = _pattern_problems(path, parsed.permissions, lines)
    if problems:
        raise ConfigError("\n".join(problems))
    return ParsedFile(parsed, lines)


def file_layer(path: Path, parsed: PermissionsFile, lines: dict[KeyPath, int], sandboxed: bool) -> Layer:
    section = parsed.permissions
    rules = []
    for category in CATEGORIES:
        for index, entry in enumerate(getattr(section, category)):
            if entry.sandboxed_only and not sandboxed:
                continue
            line = line_of(lines, ("permissions", category, index))
            rules.append(
                Rule(
                    category=category,
                    pattern=_normalized_pattern(category, entry.pattern),
                    action=entry.action,
                    priority=entry.priority,
                    reason=entry.reason,
                    source=f"{path}:{line}" if line else str(path),
                    ignore_case=entry.ignore_case,
                    exact=entry.exact,
                )
            )
    return Layer(
        source=str(path),
        rules=tuple(rules),
        default_action=section.default_action,
        ask_before_delete=section.ask_before_delete,
        read_only_tools=tuple(section.read_only_tools),
        mcp_read_only=section.mcp_read_only,
    )


def _normalized_pattern(category: Category, pattern: str) -> str:
    if category == "external_directory" and pattern.startswith("~"):
        return os.path.expanduser(pattern)
    return pattern


def _pattern_problems(path: Path, section: PermissionsSection, lines: dict[KeyPath, int]) -> list[str]:
    problems = []
    for category in CATEGORIES:
        for index, entry in enumerate(getattr(section, category)):
            loc: KeyPath = ("permissions", category, index)
            where = _where(path, lines, (*loc, "pattern"))
            pattern = _normalized_pattern(category, entry.pattern)
            problem = _check_exact(entry) if entry.exact else _check_pattern(category, pattern)
            if problem:
                problems.append(f"{where}: permissions.{category}.{index}.pattern: {problem}")
                continue
            for kind, index_in_kind, message in _failing_examples(category, pattern, entry):
                key = (*loc, "examples", kind, index_in_kind)
                problems.append(
                    f"{_where(path, lines, key)}: permissions.{category}.{index}.examples.{kind}.{index_in_kind}: {message}"
                )
    for index, name in enumerate(section.read_only_tools):
        if not name.strip():
            where = _where(path, lines, ("permissions", "read_only_tools", index))
            problems.append(f"{where}: permissions.read_only_tools.{index}: empty name")
    return problems


def _check_exact(entry: RuleEntry) -> str | None:
    if entry.examples is not None:
        return "an exact rule takes no examples (it matches its pattern and nothing else)"
    if entry.ignore_case:
        return "an exact rule cannot ignore case"
    return None


def _check_pattern(category: Category, pattern: str) -> str | None:
    try:
        if category == "bash":
            command_pattern(pattern)
        elif category in ("read", "edit", "external_directory"):
            path_regex(pattern)
        else:
            name_regex(pattern)
    except PatternError as exc:
        return str(exc)
    if category == "external_directory" and "/" in pattern and not pattern.startswith(("/", "**")):
        return "external_directory patterns match absolute paths: start them with /, ~ or **"
    return None


def _failing_examples(category: Category, pattern: str, entry: RuleEntry) -> list[tuple[str, int, str]]:
    if entry.examples is None:
        return []
    failures = []
    for kind, expected in (("match", True), ("not_match", False)):
        for index, example in enumerate(getattr(entry.examples, kind)):
            message = example_problem(category, pattern, example, expected, entry.ignore_case)
            if message:
                failures.append((kind, index, message))
    return failures


def _where(path: Path, lines: dict[KeyPath, int], loc: KeyPath) -> str:
    line = line_of(lines, loc)
    return f"{path}:{line}" if line else str(path)
