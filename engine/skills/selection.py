"""Which discovered skills a session uses, and the system-prompt section that lists them within a budget."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Literal

from msgspec import Struct, field

from engine.instructions import InstructionContext
from engine.records import hiding
from engine.skills.discovery import discover_skills
from engine.skills.loading import LoadPolicy
from engine.skills.model import Skill, SkillCatalog
from engine.skills.options import SkillOptions
from engine.skills.roots import default_roots

SkillStatus = Literal["ok", "invalid", "shadowed", "dropped", "disabled"]

SECTION_HEADER = """# Skills

Skills hold instructions for particular kinds of task. When the task at hand matches a skill's description, \
call load_skill with the skill's name before you start, and follow its instructions. Files a skill refers to \
(paths relative to its folder) are read with load_skill(name, path). load_skill only reads: a script a skill \
mentions runs only if you run it yourself with execute_command, like any other command."""


class SkillSelection(Struct, frozen=True, kw_only=True):
    """The skills of one session: loadable ones, the ones listed in the prompt, and what was left out."""

    catalog: SkillCatalog
    active: dict[str, Skill]
    """Skills ``load_skill`` may load, by name (listed and dropped alike)."""
    listed: tuple[Skill, ...] = ()
    """Skills named in the system prompt."""
    dropped: tuple[Skill, ...] = ()
    """Active skills that did not fit in the prompt's budget; still loadable by name."""
    disabled: tuple[Skill, ...] = ()
    """Skills left out by ``enabled``, ``exclude`` or the filter."""
    not_found: tuple[str, ...] = ()
    """Names in ``enabled`` that match no skill."""
    section: str | None = None
    """The system-prompt section, or None when no skill is listed."""
    statuses: dict[Path, SkillStatus] = field(default_factory=dict)
    """The status of each winning skill, by the path of its SKILL.md."""

    __repr__, __rich_repr__ = hiding("statuses")

    def status_of(self, skill: Skill) -> SkillStatus:
        """``ok`` (listed), ``dropped``, ``disabled`` or ``shadowed`` for a skill of the catalog."""
        return self.statuses.get(skill.location, "shadowed")


def open_skills(cwd: Path, options: SkillOptions | None = None) -> SkillSelection:
    """Discover the skills for ``cwd`` and select a session's share of them: the plain call behind sessions and CLI."""
    options = options or SkillOptions()
    roots = default_roots(cwd, extra=options.extra_roots, include_bundled=options.include_bundled)
    catalog = discover_skills(roots, LoadPolicy(unknown_fields=options.unknown_fields))
    return select_skills(catalog, options)


def select_skills(catalog: SkillCatalog, options: SkillOptions) -> SkillSelection:
    """Narrow ``catalog`` by ``enabled``, ``exclude`` and the filter, and fit the rest into the prompt budget."""
    wanted = set(options.enabled) if options.enabled is not None else None
    excluded = set(options.exclude)
    active: dict[str, Skill] = {}
    disabled: list[Skill] = []
    for name, skill in catalog.skills.items():
        keep = (wanted is None or name in wanted) and name not in excluded
        if keep and options.filter is not None:
            keep = options.filter(skill)
        if keep:
            active[name] = skill
        else:
            disabled.append(skill)
    not_found = tuple(name for name in options.enabled or () if name not in catalog.skills)
    listed, dropped, section = fit_section(list(active.values()), options.max_metadata_characters)
    status: dict[Path, SkillStatus] = {skill.location: "ok" for skill in listed}
    status.update({skill.location: "dropped" for skill in dropped})
    status.update({skill.location: "disabled" for skill in disabled})
    return SkillSelection(
        catalog=catalog,
        active=active,
        listed=tuple(listed),
        dropped=tuple(dropped),
        disabled=tuple(disabled),
        not_found=not_found,
        section=section,
        statuses=status,
    )


def fit_section(skills: list[Skill], budget: int) -> tuple[list[Skill], list[Skill], str | None]:
    """The skills that fit in ``budget`` characters (in order, skipping those too long), the rest, and the text."""
    if not skills:
        return [], [], None
    entries = [_entry(skill) for skill in skills]
    if len(_section(entries, [])) <= budget:
        return skills, [], _section(entries, [])
    reserve = len(_dropped_note(skills, with_names=False))
    used = len(_section([], []))
    listed: list[Skill] = []
    chosen: list[str] = []
    for skill, entry in zip(skills, entries, strict=True):
        if used + len(entry) + 1 + reserve <= budget:
            listed.append(skill)
            chosen.append(entry)
            used += len(entry) + 1
    kept = {id(skill) for skill in listed}
    dropped = [skill for skill in skills if id(skill) not in kept]
    if not listed:
        return [], dropped, None
    text = _section(chosen, dropped, with_names=True)
    if len(text) > budget:
        text = _section(chosen, dropped, with_names=False)
    return listed, dropped, text


def _entry(skill: Skill) -> str:
    name, description = html.escape(skill.name), html.escape(skill.description)
    return f"<skill>\n<name>{name}</name>\n<description>{description}</description>\n</skill>"


def _section(entries: list[str], dropped: list[Skill], *, with_names: bool = True) -> str:
    parts = [SECTION_HEADER, "", "<available_skills>", *entries, "</available_skills>"]
    if dropped:
        parts.append(_dropped_note(dropped, with_names=with_names))
    return "\n".join(parts)


def _dropped_note(dropped: list[Skill], *, with_names: bool) -> str:
    count = len(dropped)
    note = f"{count} more skill{'s' if count != 1 else ''} not listed here for space"
    if not with_names:
        return note + "."
    return note + "; load_skill loads them by name: " + ", ".join(skill.name for skill in dropped) + "."


class SkillInstructions:
    """The instruction contributor that lists a session's skills (name and description) in the system prompt."""

    def __init__(self, selection: SkillSelection) -> None:
        self.selection = selection

    def contribute(self, context: InstructionContext) -> str | None:
        return self.selection.section
