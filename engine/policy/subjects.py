"""What a tool call touches, as subjects for the permission rules.

Paths are judged as the tools will open them: ``~``, ``.``, ``..`` and symbolic links resolved
against the working directory, so every spelling of one file is one subject. A path inside the
working directory is judged relative to it by the ``read`` or ``edit`` rules; a path outside by the
``external_directory`` rules on its absolute form (and by any ``read``/``edit`` rule that matches it).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from engine.events import ToolCall
from engine.paths import PROJECT_DIR_NAME, project_root, user_config_dir
from engine.policy.patterns import render_words
from engine.policy.rules import Subject
from engine.policy.shell import ShellAnalysis, ShellCommand, analyze
from engine.tools.base import ToolContext
from engine.tools.globs import split_base
from engine.tools.paths import PathOutsideRoots, resolve_path, working_directory
from engine.tools.search import _glob_root

SHELL_TOOL = "execute_command"
MCP_PREFIX = "mcp__"
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
"""Redirection targets that are no file anyone cares about."""

PathCategory = Literal["read", "edit"]


@dataclass
class CallSubjects:
    """The subjects of one call, the problems that make it impossible to judge fully, and its memory key."""

    subjects: list[Subject] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Reasons to ask: what could not be known or understood before the call runs."""
    invalid: str | None = None
    """Why the call's arguments cannot be judged at all (the call is refused with this message)."""
    remember: str | None = None
    """The exact pattern an "always for this session" answer records for this call."""


PathArgument = Callable[[ToolCall], tuple[PathCategory, list[str] | None]]


def _path_argument(category: PathCategory, default: str | None = None) -> PathArgument:
    def target(call: ToolCall) -> tuple[PathCategory, list[str] | None]:
        path = _string_argument(call, "path", default)
        return category, None if path is None else [path]

    return target


def _search_targets(call: ToolCall) -> tuple[PathCategory, list[str] | None]:
    """The directory a glob or grep searches, and the literal directory its pattern narrows the search to."""
    path = _string_argument(call, "path", ".")
    if path is None:
        return "read", None
    if call.name == "glob_files":
        pattern = call.arguments.get("pattern")
        if not isinstance(pattern, str):
            return "read", None
        root, _, anchored = _glob_root(pattern, path)
        narrowed = "" if anchored else split_base(pattern)[0]
    else:
        root, glob = path, call.arguments.get("glob")
        narrowed = split_base(glob)[0] if isinstance(glob, str) and not glob.startswith("/") else ""
    return "read", [root] + ([os.path.join(root, narrowed)] if narrowed else [])


_FILE_TOOLS: dict[str, PathArgument] = {
    "read_file": _path_argument("read"),
    "write_file": _path_argument("edit"),
    "edit_file": _path_argument("edit"),
    "list_directory": _path_argument("read", "."),
    "grep_files": _search_targets,
    "glob_files": _search_targets,
}


def subjects_for(call: ToolCall, ctx: ToolContext) -> CallSubjects:
    """Everything the rules must judge for ``call``."""
    if call.name == SHELL_TOOL:
        return _shell_subjects(call, ctx)
    if call.name in _FILE_TOOLS:
        return _file_subjects(call, ctx)
    out = CallSubjects(remember=call.name)
    if call.name.startswith(MCP_PREFIX):
        out.subjects.append(Subject(category="mcp_tools", value=call.name, shown=call.name))
        out.subjects.append(Subject(category="tools", value=call.name, shown=call.name, decisive=False))
    else:
        out.subjects.append(Subject(category="tools", value=call.name, shown=call.name))
    return out


def _file_subjects(call: ToolCall, ctx: ToolContext) -> CallSubjects:
    category, raws = _FILE_TOOLS[call.name](call)
    out = CallSubjects()
    out.subjects.append(Subject(category="tools", value=call.name, shown=call.name, decisive=False))
    if raws is None:
        out.invalid = f"{call.name} needs its path arguments as strings"
        return out
    for raw in raws:
        subjects, problem = path_subjects(raw, category, ctx)
        out.subjects.extend(subjects)
        if problem:
            out.problems.append(problem)
    shown = [s.shown for s in out.subjects if s.decisive]
    out.remember = f"{call.name}: {' '.join(shown)}" if shown else None
    return out


def _shell_subjects(call: ToolCall, ctx: ToolContext) -> CallSubjects:
    command = call.arguments.get("command")
    out = CallSubjects()
    out.subjects.append(Subject(category="tools", value=call.name, shown=call.name, decisive=False))
    if not isinstance(command, str):
        out.invalid = "execute_command needs a 'command' argument that is a string"
        return out
    analysis = analyze(command)
    out.problems.extend(analysis.problems)
    out.subjects.extend(command_subjects(analysis))
    for redirection in analysis.redirections:
        _redirection_subjects(redirection.target, redirection.writes, redirection.bases, ctx, out)
    out.remember = f"{SHELL_TOOL}: {command}"
    return out


def command_subjects(analysis: ShellAnalysis) -> list[Subject]:
    """One subject per command that runs (plus its bare program name when written with a path) and pipeline."""
    subjects = []
    for command in analysis.commands:
        subjects.extend(_command_subjects(command))
    for words in analysis.pipelines:
        shown = render_words(words)
        subjects.append(Subject(category="bash", value=words, shown=shown, decisive=False, only_restrictive=True))
    return subjects


def _command_subjects(command: ShellCommand) -> list[Subject]:
    words = command.words
    shown = render_words(words)
    subjects = [Subject(category="bash", value=words, shown=shown, decisive=command.decisive, deletes=command.deletes)]
    first = words[0] if words else None
    if first is not None and "/" in first.rstrip("/"):
        bare = (first.rstrip("/").rsplit("/", 1)[-1], *words[1:])
        subjects.append(
            Subject(category="bash", value=bare, shown=render_words(bare), decisive=False, only_restrictive=True)
        )
    return subjects


def _redirection_subjects(
    target: str | None, writes: bool, bases: tuple[str | None, ...], ctx: ToolContext, out: CallSubjects
) -> None:
    if target is None:
        out.problems.append("a redirection whose target is only known when it runs")
        return
    if target in HARMLESS_TARGETS:
        return
    for base in bases:
        if base is None and not _anchored(target):
            out.problems.append(f"{target} is relative to a directory only known when the command runs")
            continue
        raw = target if _anchored(target) or not base else os.path.join(base, target)
        subjects, problem = path_subjects(raw, "edit" if writes else "read", ctx)
        out.subjects.extend(subjects)
        if problem:
            out.problems.append(problem)


def _anchored(path: str) -> bool:
    return path.startswith(("/", "~"))


def path_subjects(raw: str, category: PathCategory, ctx: ToolContext) -> tuple[list[Subject], str | None]:
    """The subjects for opening ``raw`` to read or to edit, or a problem when it cannot be resolved."""
    resolved = resolve_for_rules(raw, ctx)
    if resolved is None:
        return [], f"the path {raw!r} cannot be resolved"
    cwd = working_directory(ctx)
    protected = protection(resolved, cwd) if category == "edit" else ""
    if resolved == cwd or resolved.is_relative_to(cwd):
        relative = "." if resolved == cwd else resolved.relative_to(cwd).as_posix()
        return [Subject(category=category, value=relative, shown=relative, protected=protected)], None
    absolute = resolved.as_posix()
    return [
        Subject(category="external_directory", value=absolute, shown=absolute, protected=protected),
        Subject(category=category, value=absolute, shown=absolute, decisive=False, protected=protected),
    ], None


def protection(path: Path, cwd: Path) -> str:
    """Why changing ``path`` is always asked: it holds hive's own configuration, or code git runs by itself."""
    project = project_root(cwd)
    hive_folders = (project / PROJECT_DIR_NAME, _resolved(user_config_dir()))
    if any(path == folder or path.is_relative_to(folder) for folder in hive_folders):
        return f"{path} is hive's own configuration (permissions, settings): changing it is always asked"
    git = project / ".git"
    if path == git / "config" or path.is_relative_to(git / "hooks"):
        return f"{path} decides what git runs by itself: changing it is always asked"
    return ""


def _resolved(path: Path) -> Path:
    try:
        return path.expanduser().resolve(strict=False)
    except (OSError, RuntimeError):
        return path


def resolve_for_rules(raw: str, ctx: ToolContext) -> Path | None:
    """``raw`` resolved exactly as the file tools resolve it (allowed roots aside), or None when it cannot be."""
    try:
        return resolve_path(raw, ctx)
    except PathOutsideRoots as outside:
        return outside.resolved
    except ValueError:
        return None


def _string_argument(call: ToolCall, name: str, default: str | None = None) -> str | None:
    value = call.arguments.get(name, default)
    if value is None:
        value = default
    return value if isinstance(value, str) else None
