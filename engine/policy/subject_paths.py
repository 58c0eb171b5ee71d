"""Paths as subjects of the rules: resolved as the tools will open them, inside or outside the working directory.

Inside the working directory a path is judged relative to it by the ``read`` or ``edit`` rules;
outside, by the ``external_directory`` rules on its absolute form (and by any ``read``/``edit``
rule that matches it). An edit of a protected path (:mod:`engine.policy.protected`) is always asked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from msgspec import Struct, field

from engine.policy.protected import protection
from engine.policy.rules import Subject
from engine.tools.base import ToolContext
from engine.tools.paths import PathOutsideRoots, resolve_path, working_directory

PathCategory = Literal["read", "edit"]


class CallSubjects(Struct):
    """The subjects of one call, the problems that make it impossible to judge fully, and its memory key."""

    subjects: list[Subject] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Reasons to ask: what could not be known or understood before the call runs."""
    invalid: str | None = None
    """Why the call's arguments cannot be judged at all (the call is refused with this message)."""
    remember: str | None = None
    """The exact pattern an "always for this session" answer records for this call."""

    def add_path(self, raw: str, category: PathCategory, ctx: ToolContext, *, trusted_outside: bool = False) -> None:
        """Add the subjects for opening ``raw`` (or the problem that it cannot be resolved)."""
        subjects, problem = path_subjects(raw, category, ctx, trusted_outside=trusted_outside)
        self.subjects.extend(subjects)
        if problem:
            self.problems.append(problem)


def path_subjects(
    raw: str, category: PathCategory, ctx: ToolContext, *, trusted_outside: bool = False
) -> tuple[list[Subject], str | None]:
    """The subjects for opening ``raw`` to read or to edit, or a problem when it cannot be resolved.

    ``trusted_outside``: outside the working directory, only rules that match count (no
    ``external_directory`` subject): for files of a folder hive itself trusts, such as a skill root.
    """
    resolved = resolve_for_rules(raw, ctx)
    if resolved is None:
        return [], f"the path {raw!r} cannot be resolved"
    cwd = working_directory(ctx)
    protected = protection(resolved) if category == "edit" else ""
    if resolved == cwd or resolved.is_relative_to(cwd):
        relative = "." if resolved == cwd else resolved.relative_to(cwd).as_posix()
        return [Subject(category=category, value=relative, shown=relative, protected=protected)], None
    absolute = resolved.as_posix()
    inside_rules = Subject(category=category, value=absolute, shown=absolute, decisive=False, protected=protected)
    if trusted_outside:
        return [inside_rules], None
    external = Subject(category="external_directory", value=absolute, shown=absolute, protected=protected)
    return [external, inside_rules], None


def resolve_for_rules(raw: str, ctx: ToolContext) -> Path | None:
    """``raw`` resolved exactly as the file tools resolve it (allowed roots aside), or None when it cannot be."""
    try:
        return resolve_path(raw, ctx)
    except PathOutsideRoots as outside:
        return outside.resolved
    except ValueError:
        return None
