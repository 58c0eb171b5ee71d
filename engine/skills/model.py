"""What discovery produces: skill roots, loaded skills, diagnostics and the catalog that holds them."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from msgspec import Struct, field

Severity = Literal["error", "warning"]


class SkillRoot(Struct, frozen=True):
    """A folder whose subfolders are skills; ``label`` says where it comes from (project, user, bundled, ...)."""

    path: Path
    label: str


class SkillDiagnostic(Struct, frozen=True):
    """A problem found while discovering skills: an error (the skill is not loaded) or a warning."""

    path: Path
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class Skill(Struct, frozen=True, kw_only=True):
    """A loaded skill: what the model is told about it and where its files are."""

    name: str
    description: str
    location: Path
    """The absolute path of its SKILL.md; the skill's folder is the parent."""
    root: SkillRoot
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: tuple[str, ...] = ()
    """Parsed from ``allowed-tools`` for information; hive does not enforce it."""
    metadata: dict[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def directory(self) -> Path:
        """The skill's folder: the only place ``load_skill`` reads from."""
        return self.location.parent


class ShadowedSkill(Struct, frozen=True):
    """A skill hidden by a namesake found earlier (in a root of higher priority, or earlier in the same root)."""

    skill: Skill
    winner: Skill


class InvalidSkill(Struct, frozen=True):
    """A folder holding a SKILL.md that could not be loaded."""

    path: Path
    root: SkillRoot
    message: str


class SkillCatalog(Struct, frozen=True, kw_only=True):
    """Every skill found across the roots: the winners by name, the shadowed, the invalid, and diagnostics."""

    roots: tuple[SkillRoot, ...]
    skills: dict[str, Skill]
    """Loadable skills by name, in discovery order (root priority, then folder name)."""
    shadowed: tuple[ShadowedSkill, ...] = ()
    invalid: tuple[InvalidSkill, ...] = ()
    diagnostics: tuple[SkillDiagnostic, ...] = ()
