"""How a session uses skills: the ``skills`` section of the settings files and the options it becomes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from msgspec import Meta, Struct

from engine.config.validation import StrictRecord
from engine.paths import project_root, user_config_dir
from engine.skills.model import Skill

T = TypeVar("T")

DEFAULT_MAX_METADATA_CHARACTERS = 15_000
"""Characters the skills section of the system prompt may take by default."""


class SkillsFile(StrictRecord, frozen=True):
    """The ``skills`` section of a settings file. Unknown keys are errors."""

    enabled: tuple[str, ...] | None = None
    """Only these skills (by name); every skill when absent."""
    exclude: tuple[str, ...] | None = None
    """Never these skills (by name)."""
    unknown_fields: Literal["reject", "accept"] | None = None
    """Frontmatter keys outside the specification: ``reject`` the skill (default) or ``accept`` it with a warning."""
    max_metadata_characters: Annotated[int, Meta(ge=0)] | None = None
    """Bound on the system prompt's skills section."""
    roots: tuple[str, ...] | None = None
    """More folders of skills, searched after the project's and before the user's."""
    bundled: bool | None = None
    """Whether the skills that ship with hive are offered (default true)."""


class SkillOptions(Struct, frozen=True, kw_only=True):
    """What a session does with the discovered skills."""

    enabled: tuple[str, ...] | None = None
    """Only these names; None means every skill."""
    exclude: tuple[str, ...] = ()
    filter: Callable[[Skill], bool] | None = None
    """A host's own choice: skills for which it returns False are left out."""
    unknown_fields: Literal["reject", "accept"] = "reject"
    max_metadata_characters: int = DEFAULT_MAX_METADATA_CHARACTERS
    extra_roots: tuple[Path, ...] = ()
    include_bundled: bool = True


def skill_options(project: SkillsFile, user: SkillsFile, cwd: Path) -> SkillOptions:
    """The options the project's and the user's ``skills`` sections give (project first, key by key).

    Extra roots are relative to the folder of the file that names them: the project root, or the user config dir.
    """
    enabled = _first(project.enabled, user.enabled)
    max_chars = _first(project.max_metadata_characters, user.max_metadata_characters)
    extra = [_rooted(project_root(cwd), raw) for raw in project.roots or ()]
    extra += [_rooted(user_config_dir(), raw) for raw in user.roots or ()]
    return SkillOptions(
        enabled=tuple(enabled) if enabled is not None else None,
        exclude=tuple(_first(project.exclude, user.exclude) or ()),
        unknown_fields=_first(project.unknown_fields, user.unknown_fields) or "reject",
        max_metadata_characters=DEFAULT_MAX_METADATA_CHARACTERS if max_chars is None else max_chars,
        extra_roots=tuple(extra),
        include_bundled=_first(project.bundled, user.bundled) is not False,
    )


def _first(project: T | None, user: T | None) -> T | None:
    return project if project is not None else user


def _rooted(base: Path, raw: str) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else base / path
