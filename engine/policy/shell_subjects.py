"""What a shell command line touches: its commands, pipelines, redirections, and the files its arguments name.

Every command that runs is a ``bash`` subject (plus its bare program name when written with a
path). Files named by options and operands that the command tables know (``cp a b``, ``git -C
DIR``, ``pytest --junit-xml F``) and redirection targets are judged as reads or edits, relative to
every directory a ``cd`` may have moved the command to, and a glob for the files it matches. A
command a table knows that runs in another directory is a read of that directory too; git run where
it would pick up a repository other than a ``.git`` folder asks, and so does git in a repository
whose own configuration names programs git runs. A line that may create links and also writes files
asks: the write could follow a link made a moment earlier.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct, field

from engine.policy.command_args import ParsedCommand, parse_command
from engine.policy.git_config_risk import git_config_risk
from engine.policy.patterns import render_words
from engine.policy.protected import looks_like_git_dir
from engine.policy.rules import Subject
from engine.policy.shell import ShellAnalysis, ShellCommand
from engine.policy.subject_paths import CallSubjects, PathCategory, resolve_for_rules
from engine.tools.base import ToolContext
from engine.tools.paths import working_directory

MAX_GLOB_MATCHES = 256
"""Files a glob in a command's arguments is judged for at most; more asks."""
_GLOB = re.compile(r"[*?\[]")
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
"""Redirection targets that are no file anyone cares about."""


class _Writes(Struct):
    """Who writes what in the line, to catch a write that may follow a link the line itself made."""

    linkers: list[int] = field(default_factory=list)
    writes: list[tuple[int, str]] = field(default_factory=list)
    """(index of the command, or -1 for a redirection; the path written)."""

    def problem(self) -> str | None:
        if not self.linkers:
            return None
        first = self.linkers[0]
        elsewhere = next((path for owner, path in self.writes if owner != first), None)
        if elsewhere is None:
            return None
        return (
            f"a command in this line may create links, and the line also writes {elsewhere}: "
            "the write could follow a link made a moment earlier"
        )


def shell_subjects(analysis: ShellAnalysis, ctx: ToolContext, out: CallSubjects) -> None:
    """Add the subjects and problems of a command line taken apart by :func:`engine.policy.shell.analyze`."""
    writes = _Writes()
    for index, command in enumerate(analysis.commands):
        parsed = parse_command(command.words) if command.decisive else None
        out.subjects.extend(command_subjects(command, parsed))
        if parsed is None:
            continue
        if parsed.cls is None:  # a file table gives no verdict, but its options that run programs ask
            out.problems.extend(parsed.asks)
        if parsed.links:
            writes.linkers.append(index)
        _argument_subjects(command, parsed, ctx, out, index, writes)
    for words in analysis.pipelines:
        shown = render_words(words)
        out.subjects.append(Subject(category="bash", value=words, shown=shown, decisive=False, only_restrictive=True))
    for redirection in analysis.redirections:
        _redirection_subjects(redirection.target, redirection.writes, redirection.bases, ctx, out, writes)
    problem = writes.problem()
    if problem:
        out.problems.append(problem)


def command_subjects(command: ShellCommand, parsed: ParsedCommand | None = None) -> list[Subject]:
    """The command as a ``bash`` subject, and its bare program name when it is written with a path."""
    words = command.words
    deletes = command.decisive and (command.deletes or (parsed is not None and parsed.deletes))
    subjects = [
        Subject(category="bash", value=words, shown=render_words(words), decisive=command.decisive, deletes=deletes)
    ]
    first = words[0] if words else None
    if first is not None and "/" in first.rstrip("/"):
        bare = (first.rstrip("/").rsplit("/", 1)[-1], *words[1:])
        subjects.append(
            Subject(category="bash", value=bare, shown=render_words(bare), decisive=False, only_restrictive=True)
        )
    return subjects


def _argument_subjects(
    command: ShellCommand, parsed: ParsedCommand, ctx: ToolContext, out: CallSubjects, index: int, writes: _Writes
) -> None:
    for base in command.bases:
        directory = _run_directory(base, parsed.directories)
        if directory is None:
            if parsed.cls is not None or parsed.paths:
                out.problems.append(f"{parsed.name} runs in a directory only known when it runs")
            continue
        if parsed.cls is not None and directory:
            out.add_path(directory, "read", ctx)
        if parsed.tool == "git":
            _repository_check(directory, ctx, out)
        for argument in parsed.paths:
            if argument.use == "dir":
                continue
            if argument.value is None:
                out.problems.append(f"{parsed.name} {argument.source} names a file only known when it runs")
                continue
            category: PathCategory = "read" if argument.use == "read" else "edit"
            for raw in _expanded(_joined(directory, argument.value), ctx, out):
                out.add_path(raw, category, ctx)
                if category == "edit":
                    writes.writes.append((index, raw))


def _run_directory(base: str | None, directories: Sequence[str | None]) -> str | None:
    """Where the command runs: the ``cd`` base joined with its ``-C`` options; None when unknown."""
    current = base
    for directory in directories:
        if current is None or directory is None:
            return None
        current = _joined(current, directory)
    return current


def _joined(base: str, path: str) -> str:
    if not base or path.startswith(("/", "~")):
        return path
    return os.path.join(base, path)


def _expanded(raw: str, ctx: ToolContext, out: CallSubjects) -> list[str]:
    """``raw`` and, when it holds a glob, the files the glob matches now (bash passes those instead).

    The words no longer tell whether the glob was quoted; judging its matches as well only adds subjects.
    """
    if not _GLOB.search(raw):
        return [raw]
    anchored = os.path.expanduser(raw) if raw.startswith("~") else raw
    pattern = anchored if os.path.isabs(anchored) else os.path.join(working_directory(ctx), anchored)
    matches = sorted(itertools.islice(glob.iglob(pattern), MAX_GLOB_MATCHES + 1))
    if len(matches) > MAX_GLOB_MATCHES:
        out.problems.append(f"{raw} matches more than {MAX_GLOB_MATCHES} files")
    return [raw, *matches[:MAX_GLOB_MATCHES]]


def _repository_check(directory: str, ctx: ToolContext, out: CallSubjects) -> None:
    """Ask when git, run in ``directory``, would use a folder that is a repository without being a ``.git`` folder,
    or a repository whose configuration names programs git runs (:mod:`engine.policy.git_config_risk`)."""
    resolved = resolve_for_rules(directory or ".", ctx)
    if resolved is None:
        return
    problem = _bare_repository(resolved) or git_config_risk(resolved)
    if problem and problem not in out.problems:
        out.problems.append(problem)


def _bare_repository(resolved: Path) -> str:
    for folder in (resolved, *resolved.parents):
        if folder.name == ".git" or (folder / ".git").exists():
            return ""
        if looks_like_git_dir(folder):
            return f"git would use {folder} as its repository: its config and hooks are files hive does not protect"
    return ""


def _redirection_subjects(
    target: str | None,
    writes_file: bool,
    bases: tuple[str | None, ...],
    ctx: ToolContext,
    out: CallSubjects,
    writes: _Writes,
) -> None:
    if target is None:
        out.problems.append("a redirection whose target is only known when it runs")
        return
    if target in HARMLESS_TARGETS:
        return
    for base in bases:
        if base is None and not target.startswith(("/", "~")):
            out.problems.append(f"{target} is relative to a directory only known when the command runs")
            continue
        raw = _joined(base or "", target)
        out.add_path(raw, "edit" if writes_file else "read", ctx)
        if writes_file:
            writes.writes.append((-1, raw))
