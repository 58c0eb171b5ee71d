"""Settings files (``.ironhive/settings.yaml`` in the project and the user config dir) and how they combine.

Each section of a file is a typed model whose field defaults are the one source of every default.
Files are validated strictly (an unknown key or a bad value is an error naming the file and the
line). The project's file wins over the user's key by key, within each section too; a key neither
file sets keeps its default. Flags and environment come on top in ``engine.config``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from msgspec import Struct
from pydantic import BaseModel, ConfigDict, Field

from engine.checkpoints.options import CheckpointOptions
from engine.config_files import load_model
from engine.context.options import ContextOptions
from engine.defaults import DEFAULT_MAX_TURNS, DEFAULT_REQUEST_TIMEOUT_S
from engine.delegate.options import AdvisorOptions, DelegationOptions
from engine.events import WorkingMode
from engine.hooks.options import HookSpec
from engine.mcp.options import McpOptions
from engine.memory.options import MemoryOptions
from engine.paths import project_dir, user_config_dir
from engine.research.options import ResearchOptions
from engine.retrieval.options import ToolRetrievalOptions
from engine.sandbox.options import SandboxMode, SandboxOptions, SandboxSettings, layered_options
from engine.skills.options import SkillsFile
from engine.webhooks.options import WebhookOptions

SETTINGS_NAMES = ("settings.yaml", "settings.yml", "settings.json")
ModelT = TypeVar("ModelT", bound=BaseModel)


def defaults_of(model: type[ModelT]) -> Callable[[], ModelT]:
    """A default factory: ``model`` with its defaults, neither validated nor building its validator.

    The settings' models are ``defer_build``: a model is built (several ms each) only when a file
    gives it values to validate, so a session with no settings file builds none of them.
    """

    def defaults() -> ModelT:
        return model.model_construct()

    return defaults


class LimitsFile(BaseModel):
    """The ``limits`` section of a settings file."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    max_total_tokens: int | None = Field(default=None, gt=0)
    max_cost_usd: float | None = Field(default=None, gt=0)


class SettingsFile(BaseModel):
    """One settings file. Unknown keys are errors, so a typo never passes silently."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    model: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    """Name of an environment variable holding the API key (keys never belong in files)."""
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, gt=0)
    request_timeout: float = Field(default=DEFAULT_REQUEST_TIMEOUT_S, gt=0)
    """Seconds one model call may take."""
    mode: WorkingMode = "work"
    """The mode a session starts in (``--mode`` wins)."""
    provider_client: Literal["auto", "litellm"] = "auto"
    """``auto``: hive's own client for OpenAI-compatible providers and Anthropic, litellm for the rest;
    ``litellm``: litellm for all."""
    limits: LimitsFile = Field(default_factory=defaults_of(LimitsFile))
    skills: SkillsFile = Field(default_factory=defaults_of(SkillsFile))
    mcp: McpOptions = Field(default_factory=defaults_of(McpOptions))
    context: ContextOptions = Field(default_factory=defaults_of(ContextOptions))
    research: ResearchOptions = Field(default_factory=defaults_of(ResearchOptions))
    delegation: DelegationOptions = Field(default_factory=defaults_of(DelegationOptions))
    advisor: AdvisorOptions = Field(default_factory=defaults_of(AdvisorOptions))
    checkpoints: CheckpointOptions = Field(default_factory=defaults_of(CheckpointOptions))
    webhooks: WebhookOptions = Field(default_factory=defaults_of(WebhookOptions))
    memory: MemoryOptions = Field(default_factory=defaults_of(MemoryOptions))
    tool_retrieval: ToolRetrievalOptions = Field(default_factory=defaults_of(ToolRetrievalOptions))
    sandbox: SandboxSettings = Field(default_factory=defaults_of(SandboxSettings))
    """How shell commands are confined (``--sandbox`` wins over the mode)."""
    hooks: list[HookSpec] = []  # pydantic copies it (default_factory=list costs a signature parse)
    """Shell commands run at named points (see ``engine.hooks``); the user's and the project's both run."""


class LayeredSettings(Struct, frozen=True):
    """The project and user settings files, either of which may be absent."""

    project: SettingsFile
    user: SettingsFile
    sources: tuple[Path, ...] = ()

    def merged(self) -> SettingsFile:
        """Both files as one: the project's keys over the user's, section by section."""
        return overlay(self.project, self.user)

    def sandbox_options(
        self, project_root: Path, mode: SandboxMode | None = None
    ) -> tuple[SandboxOptions, tuple[str, ...]]:
        """The sandbox: the user's, which the project's settings may tighten but never loosen (what they asked in vain)."""
        return layered_options(self.user.sandbox, self.project.sandbox, project_root, mode)

    def get(self, name: str) -> Any:
        """One top-level value: the project's if it sets it, else the user's, else the default."""
        return getattr(self.merged(), name)


def overlay(top: ModelT, below: ModelT) -> ModelT:
    """``top``'s keys where it set them, else ``below``'s where it set them; sections merge key by key."""
    values: dict[str, Any] = {}
    for name in type(top).model_fields:
        upper, lower = getattr(top, name), getattr(below, name)
        if isinstance(upper, BaseModel) and isinstance(lower, BaseModel):
            values[name] = overlay(upper, lower)
        elif name in top.model_fields_set:
            values[name] = upper
        elif name in below.model_fields_set:
            values[name] = lower
    return type(top).model_construct(**values)  # both layers are validated; merging them keeps them so


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
            layers.append(SettingsFile.model_construct())
            continue
        layers.append(load_model(path, SettingsFile))
        sources.append(path)
    return LayeredSettings(project=layers[0], user=layers[1], sources=tuple(sources))
