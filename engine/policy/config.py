"""``.ironhive/permissions.yaml`` (or ``.yml``, ``.json``) in the project and the user config dir.

The project's ``.ironhive/permissions.local.yaml`` (the rules saved from "always in this project"
answers) is one more layer on top; it never replaces the built-in defaults.

A file that exists but is not a valid configuration is an error naming the file and the line, never
a fallback to the defaults (which allow more). Rules may carry examples that are checked as the file
loads, so a rule that does not do what its author meant is caught at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.config_files import KeyPath, describe_errors, json_key_lines, line_of, read_document
from engine.errors import ConfigError
from engine.paths import project_dir, user_config_dir
from engine.policy.defaults import DEFAULT_SOURCE, default_layer
from engine.policy.examples import example_problem
from engine.policy.patterns import PatternError, command_pattern, name_regex, path_regex
from engine.policy.rules import CATEGORIES, Action, Category, Layer, Rule, RuleBook

PERMISSIONS_NAMES = ("permissions.yaml", "permissions.yml", "permissions.json")
LOCAL_NAME = "permissions.local.yaml"
"""The project's rules saved from "always in this project" answers (see :mod:`engine.policy.local_rules`)."""


class _Strict(BaseModel):
    # Built at the first file validated, not at import: most sessions have no permissions file.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class RuleExamples(_Strict):
    """Inputs the rule must match and inputs it must not match."""

    match: list[str] = Field(default_factory=list)
    not_match: list[str] = Field(default_factory=list)


class RuleEntry(_Strict):
    """One rule as written in the file."""

    pattern: str = Field(min_length=1)
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


class PermissionsSection(_Strict):
    """The ``permissions:`` section."""

    read: list[RuleEntry] = Field(default_factory=list)
    edit: list[RuleEntry] = Field(default_factory=list)
    bash: list[RuleEntry] = Field(default_factory=list)
    external_directory: list[RuleEntry] = Field(default_factory=list)
    mcp_tools: list[RuleEntry] = Field(default_factory=list)
    tools: list[RuleEntry] = Field(default_factory=list)
    read_only_tools: list[str] = Field(default_factory=list)
    mcp_read_only: Action | None = None
    """The action for MCP tools their server marks read-only, when no mcp_tools rule matches."""
    default_action: Action | None = None
    ask_before_delete: bool | None = None
    include_defaults: bool = False
    """Keep the built-in rules as a layer under this file's rules."""


class InjectionGuardEntry(_Strict):
    """``guards.prompt_injection``: flag (or withhold) tool results that look like prompt injection."""

    enabled: bool = False
    action: Literal["flag", "withhold"] = "flag"


class GuardsSection(_Strict):
    """The ``guards:`` section."""

    prompt_injection: InjectionGuardEntry = Field(default_factory=InjectionGuardEntry)


class PermissionsFile(_Strict):
    """A whole permissions file: ``permissions:`` is required."""

    permissions: PermissionsSection
    guards: GuardsSection = Field(default_factory=GuardsSection)


@dataclass(frozen=True)
class GuardSettings:
    """Which result guards are on (combined over the files: on in either is on)."""

    prompt_injection: bool = False
    prompt_injection_action: Literal["flag", "withhold"] = "flag"


@dataclass(frozen=True)
class PermissionConfig:
    """The rules in force for a working directory and the files they came from."""

    book: RuleBook
    sources: tuple[Path, ...] = ()
    guards: GuardSettings = field(default_factory=GuardSettings)
    sandboxed: bool = True
    """Whether shell commands run in the OS sandbox; the rules were chosen for it (see :func:`load_permissions`)."""

    @property
    def uses_defaults(self) -> bool:
        """True when the built-in defaults are one of the layers."""
        return any(layer.source == DEFAULT_SOURCE for layer in self.book.layers)


def find_permissions_file(folder: Path) -> Path | None:
    """The first of ``permissions.yaml``, ``.yml``, ``.json`` present in ``folder``."""
    for name in PERMISSIONS_NAMES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def load_permissions(cwd: Path, *, sandboxed: bool = True) -> PermissionConfig:
    """The user's and the project's permission files combined, or the built-in defaults when neither exists.

    ``sandboxed`` is the one place the policy learns whether shell commands run in the OS sandbox:
    the built-in defaults allow running the project's own code (tests, builds) only when they do, and
    rules marked ``sandboxed_only`` count only then. Pass False when the sandbox is off or cannot start.
    """
    layers: list[Layer] = []
    sources: list[Path] = []
    guards = GuardSettings()
    for folder in (user_config_dir(), project_dir(cwd)):
        path = find_permissions_file(folder)
        if path is None:
            continue
        parsed = load_permissions_file(path)
        layers.append(_layer(path, parsed.file, parsed.lines, sandboxed))
        guards = _combine_guards(guards, parsed.file.guards)
        sources.append(path)
        if parsed.file.permissions.include_defaults and not any(lay.source == DEFAULT_SOURCE for lay in layers):
            layers.append(default_layer(sandboxed=sandboxed))
    if not sources:
        layers.append(default_layer(sandboxed=sandboxed))
    local = project_dir(cwd) / LOCAL_NAME
    if local.is_file():  # saved answers sit on top and never replace the defaults
        parsed = load_permissions_file(local)
        layers.insert(0, _layer(local, parsed.file, parsed.lines, sandboxed))
        guards = _combine_guards(guards, parsed.file.guards)
        sources.append(local)
    book = RuleBook(tuple(layers))
    return PermissionConfig(book=book, sources=tuple(sources), guards=guards, sandboxed=sandboxed)


def default_permissions(*, sandboxed: bool = True) -> PermissionConfig:
    """The built-in defaults alone (for commands run in the sandbox, unless ``sandboxed`` is False)."""
    return PermissionConfig(book=RuleBook((default_layer(sandboxed=sandboxed),)), sandboxed=sandboxed)


@dataclass(frozen=True)
class ParsedFile:
    """A validated file and the line of every key in it."""

    file: PermissionsFile
    lines: dict[KeyPath, int]


def load_permissions_file(path: Path) -> ParsedFile:
    """Read and check one file; raises ``ConfigError`` naming the file and line of every problem."""
    data, lines = read_document(path)
    if path.suffix == ".json":
        lines = json_key_lines(path)
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}:1: missing the 'permissions:' section; the smallest valid file is\n"
            "  permissions:\n    include_defaults: true\n"
            "(or delete the file to use the built-in defaults; README, Permissions, has examples)"
        )
    try:
        parsed = PermissionsFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_errors(path, exc, lines)) from None
    problems = _pattern_problems(path, parsed.permissions, lines)
    if problems:
        raise ConfigError("\n".join(problems))
    return ParsedFile(parsed, lines)


def _layer(path: Path, parsed: PermissionsFile, lines: dict[KeyPath, int], sandboxed: bool) -> Layer:
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


def _combine_guards(current: GuardSettings, section: GuardsSection) -> GuardSettings:
    entry = section.prompt_injection
    if not entry.enabled:
        return current
    withhold = "withhold" in (entry.action, current.prompt_injection_action if current.prompt_injection else "flag")
    return GuardSettings(prompt_injection=True, prompt_injection_action="withhold" if withhold else "flag")
