"""What a tool call touches, as subjects for the permission rules.

Paths are judged as the tools will open them (see :mod:`engine.policy.subject_paths`), shell command
lines part by part (see :mod:`engine.policy.shell_subjects`), MCP tools by name and, when their
server marks them read-only, by ``mcp_read_only``; a ``web_fetch`` call by the domain it reads
(``web_fetch: docs.python.org``, see :mod:`engine.tools.web.domains`). A ``remember`` call that keeps a note for every
project adds the subject ``remember (user scope)``, which the built-in defaults ask about.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from engine.events import ToolCall
from engine.policy.rules import Subject
from engine.policy.subject_paths import CallSubjects, PathCategory, resolve_for_rules
from engine.tools.base import ToolContext, ToolSpec
from engine.tools.globs import split_base
from engine.tools.paths import working_directory
from engine.tools.search import _glob_root
from engine.tools.web.domains import FETCH_TOOL, NotFetchable, domain_of, fetch_subject

__all__ = ["SKILL_FILE_PROBE", "USER_SCOPE_NOTE", "CallSubjects", "resolve_for_rules", "subjects_for"]

SHELL_TOOL = "execute_command"
MCP_PREFIX = "mcp__"
SKILL_FILE_PROBE = "load_skill file"
"""Not a tool: the name under which the result filter asks whether a file ``load_skill`` read may be shown.

Inside the working directory the file is judged by the read rules; outside it (a skill root of the
user's or hive's own) only the read rules that match count, so secret patterns still deny or ask.
"""

REMEMBER_TOOL = "remember"
USER_SCOPE_NOTE = "remember (user scope)"
"""The ``tools`` subject of a ``remember`` call whose note is recalled in every project, not only this one."""

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
    "repo_map": _path_argument("read", "."),
}


def subjects_for(call: ToolCall, ctx: ToolContext, spec: ToolSpec | None = None) -> CallSubjects:
    """Everything the rules must judge for ``call`` (of the tool ``spec``, when known)."""
    if call.name == SHELL_TOOL:
        return _shell_subjects(call, ctx)
    if call.name in _FILE_TOOLS:
        return _file_subjects(call, ctx)
    if call.name == SKILL_FILE_PROBE:
        return _skill_file_subjects(call, ctx)
    if call.name == REMEMBER_TOOL:
        return _remember_subjects(call)
    if call.name == FETCH_TOOL:
        return _fetch_subjects(call)
    out = CallSubjects(remember=call.name)
    if call.name.startswith(MCP_PREFIX):
        read_only = spec is not None and spec.kind == "mcp" and spec.read_only
        untrusted = spec is not None and spec.untrusted_claims
        out.subjects.append(
            Subject(
                category="mcp_tools",
                value=call.name,
                shown=call.name,
                read_only_mcp=read_only,
                untrusted_claim=read_only and untrusted,
            )
        )
        if spec is not None and spec.added_later:
            out.problems.append(f"its server added {call.name} after the session started: a tool not seen before")
        out.subjects.append(Subject(category="tools", value=call.name, shown=call.name, decisive=False))
    else:
        out.subjects.append(Subject(category="tools", value=call.name, shown=call.name))
    return out


def _remember_subjects(call: ToolCall) -> CallSubjects:
    """``remember``, and ``remember (user scope)`` unless the note is plainly for this project only."""
    out = CallSubjects(remember=call.name)
    out.subjects.append(Subject(category="tools", value=call.name, shown=call.name))
    if call.arguments.get("scope", "project") != "project":  # a scope the tool would refuse counts as user scope
        out.subjects.append(Subject(category="tools", value=USER_SCOPE_NOTE, shown=USER_SCOPE_NOTE))
        out.remember = USER_SCOPE_NOTE
    return out


def _fetch_subjects(call: ToolCall) -> CallSubjects:
    """``web_fetch: <domain>``, decisive, and the tool's name, which counts only when a rule names it."""
    out = CallSubjects()
    out.subjects.append(Subject(category="tools", value=call.name, shown=call.name, decisive=False))
    url = call.arguments.get("url")
    if not isinstance(url, str):
        out.invalid = "web_fetch needs a 'url' argument that is a string"
        return out
    try:
        subject = fetch_subject(domain_of(url))
    except NotFetchable as exc:
        out.invalid = str(exc)
        return out
    out.subjects.append(Subject(category="tools", value=subject, shown=subject))
    out.remember = subject
    return out


def _file_subjects(call: ToolCall, ctx: ToolContext) -> CallSubjects:
    category, raws = _FILE_TOOLS[call.name](call)
    out = CallSubjects()
    out.subjects.append(Subject(category="tools", value=call.name, shown=call.name, decisive=False))
    if raws is None:
        out.invalid = f"{call.name} needs its path arguments as strings"
        return out
    for raw in raws:
        out.add_path(raw, category, ctx)
    shown = [s.shown for s in out.subjects if s.decisive]
    out.remember = f"{call.name}: {' '.join(shown)}" if shown else None
    return out


def _skill_file_subjects(call: ToolCall, ctx: ToolContext) -> CallSubjects:
    out = CallSubjects()
    path = _string_argument(call, "path")
    if path is None:
        out.invalid = "a skill file needs a path"
        return out
    resolved = resolve_for_rules(path, ctx)
    cwd = working_directory(ctx)
    inside = resolved is not None and (resolved == cwd or resolved.is_relative_to(cwd))
    out.add_path(path, "read", ctx, trusted_outside=not inside)
    return out


def _shell_subjects(call: ToolCall, ctx: ToolContext) -> CallSubjects:
    command = call.arguments.get("command")
    out = CallSubjects()
    out.subjects.append(Subject(category="tools", value=call.name, shown=call.name, decisive=False))
    if not isinstance(command, str):
        out.invalid = "execute_command needs a 'command' argument that is a string"
        return out
    # imported here: the shell parser and its command tables are needed once a command is judged
    from engine.policy.shell import analyze
    from engine.policy.shell_subjects import shell_subjects

    analysis = analyze(command)
    out.problems.extend(analysis.problems)
    shell_subjects(analysis, ctx, out)
    out.remember = f"{SHELL_TOOL}: {command}"
    return out


def _string_argument(call: ToolCall, name: str, default: str | None = None) -> str | None:
    value = call.arguments.get(name, default)
    if value is None:
        value = default
    return value if isinstance(value, str) else None
