"""Discovery: find every skill folder under the roots and load each one; never raises.

A skill folder is a folder holding ``SKILL.md`` (or ``skill.md``, which the reference validator
accepts too). Each root is walked in name order, at most :data:`MAX_DEPTH` levels deep and
:data:`MAX_FOLDERS` folders in all, skipping hidden folders and ``node_modules``; a skill's own
subfolders are not searched for more skills. The first skill found with a name wins; later
namesakes are reported as shadowed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path

from engine.parsed_files import ParsedFiles
from engine.skills.frontmatter import find_skill_file
from engine.skills.loading import LoadPolicy, SkillLoadError, read_skill
from engine.skills.model import InvalidSkill, ShadowedSkill, Skill, SkillCatalog, SkillDiagnostic, SkillRoot

MAX_DEPTH = 4
"""How deep below a root skill folders are looked for (1: only the root's own subfolders)."""
MAX_FOLDERS = 2000
"""Folders visited per root at most."""
_SKIPPED = frozenset({"node_modules", "__pycache__"})
_PARSED: ParsedFiles[Skill] = ParsedFiles()
"""SKILL.md files already loaded, kept while unchanged (a session's start and ``/skills`` list them each time)."""


def discover_skills(roots: Sequence[SkillRoot], policy: LoadPolicy | None = None) -> SkillCatalog:
    """Every skill under ``roots`` (highest priority first), with what went wrong along the way."""
    policy = policy or LoadPolicy()
    skills: dict[str, Skill] = {}
    shadowed: list[ShadowedSkill] = []
    invalid: list[InvalidSkill] = []
    diagnostics: list[SkillDiagnostic] = []
    for root in roots:
        for location in skill_files(root.path, diagnostics):
            try:
                skill = _PARSED.get((location, root, policy), location, partial(read_skill, location, root, policy))
            except SkillLoadError as exc:
                invalid.append(InvalidSkill(location.parent, root, str(exc)))
                diagnostics.append(SkillDiagnostic(location.parent, str(exc)))
                continue
            diagnostics += [SkillDiagnostic(location.parent, warning, "warning") for warning in skill.warnings]
            winner = skills.get(skill.name)
            if winner is None:
                skills[skill.name] = skill
                continue
            shadowed.append(ShadowedSkill(skill, winner))
            message = f"skill '{skill.name}' is shadowed by {winner.directory} ({winner.root.label})"
            diagnostics.append(SkillDiagnostic(location.parent, message, "warning"))
    return SkillCatalog(
        roots=tuple(roots),
        skills=skills,
        shadowed=tuple(shadowed),
        invalid=tuple(invalid),
        diagnostics=tuple(diagnostics),
    )


def skill_files(root: Path, diagnostics: list[SkillDiagnostic]) -> Iterator[Path]:
    """The SKILL.md of every skill folder under ``root``, in a stable order; problems go to ``diagnostics``."""
    if not root.exists():
        return
    if not root.is_dir():
        diagnostics.append(SkillDiagnostic(root, "a skills root must be a folder", "warning"))
        return
    seen: set[Path] = set()
    budget = [MAX_FOLDERS]
    yield from _walk(root.absolute(), 1, seen, budget, diagnostics)
    if budget[0] <= 0:
        message = f"stopped looking for skills after {MAX_FOLDERS} folders"
        diagnostics.append(SkillDiagnostic(root, message, "warning"))


def _walk(
    folder: Path, depth: int, seen: set[Path], budget: list[int], diagnostics: list[SkillDiagnostic]
) -> Iterator[Path]:
    for child in _subfolders(folder, diagnostics):
        if budget[0] <= 0:
            return
        budget[0] -= 1
        real = child.resolve()
        if real in seen:  # a symbolic link back into the tree
            continue
        seen.add(real)
        location = find_skill_file(child)
        if location is not None:
            yield location
        elif depth < MAX_DEPTH:
            yield from _walk(child, depth + 1, seen, budget, diagnostics)


def _subfolders(folder: Path, diagnostics: list[SkillDiagnostic]) -> list[Path]:
    try:
        with os.scandir(folder) as entries:
            names = sorted(
                entry.name
                for entry in entries
                if not entry.name.startswith(".") and entry.name not in _SKIPPED and _is_dir(entry)
            )
    except OSError as exc:
        diagnostics.append(SkillDiagnostic(folder, f"cannot list this folder: {exc.strerror or exc}", "warning"))
        return []
    return [folder / name for name in names]


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
