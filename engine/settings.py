"""Settings files (``.ironhive/settings.yaml`` in the project and the user config dir) and how values combine.

Precedence for every value: flag > environment > project settings > user settings > built-in default.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.config_files import load_model
from engine.paths import project_dir, user_config_dir
from engine.skills.options import SkillsFile

SETTINGS_NAMES = ("settings.yaml", "settings.yml", "settings.json")


class LimitsFile(BaseModel):
    """The ``limits`` section of a settings file."""

    model_config = ConfigDict(extra="forbid")
    max_total_tokens: int | None = Field(default=None, gt=0)
    max_cost_usd: float | None = Field(default=None, gt=0)


class SettingsFile(BaseModel):
    """One settings file. Unknown keys are errors, so a typo never passes silently."""

    model_config = ConfigDict(extra="forbid")
    model: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    """Name of an environment variable holding the API key (keys never belong in files)."""
    max_turns: int | None = Field(default=None, gt=0)
    request_timeout: float | None = Field(default=None, gt=0)
    mode: str | None = None
    limits: LimitsFile = Field(default_factory=LimitsFile)
    skills: SkillsFile = Field(default_factory=SkillsFile)


@dataclass(frozen=True)
class LayeredSettings:
    """The project and user settings files, either of which may be absent."""

    project: SettingsFile
    user: SettingsFile
    sources: tuple[Path, ...] = ()

    def get(self, name: str) -> Any:
        """The project's value if set, else the user's, else None."""
        value = getattr(self.project, name)
        return value if value is not None else getattr(self.user, name)

    def limit(self, name: str) -> Any:
        """A ``limits`` value, project first."""
        value = getattr(self.project.limits, name)
        return value if value is not None else getattr(self.user.limits, name)


def find_settings_file(folder: Path) -> Path | None:
    """The first settings file present in ``folder``."""
    for name in SETTINGS_NAMES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def load_settings(cwd: Path) -> LayeredSettings:
    """Read the project's and the user's settings; a broken file raises ``ConfigError``."""
    sources = []
    layers = []
    for folder in (project_dir(cwd), user_config_dir()):
        path = find_settings_file(folder)
        if path is None:
            layers.append(SettingsFile())
            continue
        layers.append(load_model(path, SettingsFile))
        sources.append(path)
    return LayeredSettings(project=layers[0], user=layers[1], sources=tuple(sources))
