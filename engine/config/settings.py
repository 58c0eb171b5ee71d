"""Settings files (``.ironhive/settings.yaml`` in the project and the user config dir) and how they combine.

Each section of a file is a typed model whose field defaults are the one source of every default.
Files are validated strictly (an unknown key or a bad value is an error naming the file and the
line). The project's file wins over the user's key by key, within each section too; a key neither
file sets keeps its default. Flags and environment come on top in ``engine.config.loader``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field

from engine.checkpoints.options import CheckpointOptions
from engine.config.defaults import DEFAULT_MAX_TURNS, DEFAULT_REQUEST_TIMEOUT_S
from engine.config.files import check_document, read_document
from engine.config.validation import StrictRecord, convert
from engine.context.options import ContextOptions
from engine.delegate.options import AdvisorOptions, DelegationOptions
from engine.events import WorkingMode
from engine.hooks.options import HookSpec
from engine.image_options import ImagesOptions
from engine.mcp.options import McpOptions
from engine.memory.options import MemoryOptions
from engine.paths import user_config_dir
from engine.repomap.options import RepoMapOptions
from engine.research.options import ResearchOptions
from engine.retrieval.options import ToolRetrievalOptions
from engine.sandbox.options import SandboxMode, SandboxOptions, SandboxSettings, layered_options, sandbox_section
from engine.skills.options import SkillsFile
from engine.stores.options import StoresOptions
from engine.webhooks.options import WebhookOptions
from engine.workspace import Workspace, as_workspace

SETTINGS_NAMES = ("settings.yaml", "settings.yml", "settings.json")
Given = dict[str, Any]
"""A settings file's data as read (with ``sandbox:`` as a mapping): the keys it sets, and only those."""


class LimitsFile(StrictRecord, frozen=True):
    """The ``limits`` section of a settings file."""

    max_total_tokens: Annotated[int, Meta(gt=0)] | None = None
    """Refuse new model turns once the session has used this many tokens."""
    max_cost_usd: Annotated[float, Meta(gt=0)] | None = None
    """Refuse new model turns once the session has cost this much (priced models only)."""


class SettingsFile(StrictRecord, frozen=True):
    """One settings file. Unknown keys are errors, so a typo never passes silently."""

    model: str | None = None
    """The litellm model string (``openai/gpt-4o``); ``--model`` and ``HIVE_MODEL`` win."""
    api_base: str | None = None
    """The provider's base URL, for a gateway or an OpenAI-compatible server."""
    api_key_env: str | None = None
    """Name of an environment variable holding the API key (keys never belong in files)."""
    max_turns: Annotated[int, Meta(gt=0)] = DEFAULT_MAX_TURNS
    """Model turns per task."""
    request_timeout: Annotated[float, Meta(gt=0)] = DEFAULT_REQUEST_TIMEOUT_S
    """Seconds one model call may take in all, from connecting to the reply's last byte: a reply still
    streaming then is cut (tried again, or resumed from the text that arrived)."""
    mode: WorkingMode = "work"
    """The mode a session starts in (``--mode`` wins)."""
    provider_client: Literal["auto", "litellm"] = "auto"
    """``auto``: hive's own client for OpenAI-compatible providers and Anthropic, litellm for the rest;
    ``litellm``: litellm for all."""
    tool_calls_in_text: bool = True
    """Run the tool calls a model writes as text in its reply (``<tool_call>``, ``<|python_tag|>``,
    ``[TOOL_CALLS]``, a bare or fenced JSON call naming an offered tool) as tool calls; ``false`` leaves them text."""
    limits: LimitsFile = field(default_factory=LimitsFile)
    skills: SkillsFile = field(default_factory=SkillsFile)
    mcp: McpOptions = field(default_factory=McpOptions)
    context: ContextOptions = field(default_factory=ContextOptions)
    research: ResearchOptions = field(default_factory=ResearchOptions)
    delegation: DelegationOptions = field(default_factory=DelegationOptions)
    advisor: AdvisorOptions = field(default_factory=AdvisorOptions)
    checkpoints: CheckpointOptions = field(default_factory=CheckpointOptions)
    stores: StoresOptions = field(default_factory=StoresOptions)
    webhooks: WebhookOptions = field(default_factory=WebhookOptions)
    memory: MemoryOptions = field(default_factory=MemoryOptions)
    images: ImagesOptions = field(default_factory=ImagesOptions)
    tool_retrieval: ToolRetrievalOptions = field(default_factory=ToolRetrievalOptions)
    repo_map: RepoMapOptions = field(default_factory=RepoMapOptions)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    """How shell commands are confined (``--sandbox`` wins over the mode)."""
    hooks: tuple[HookSpec, ...] = ()
    """Shell commands run at named points (see ``engine.hooks``); the user's and the project's both run."""


class LayeredSettings(Struct, frozen=True, kw_only=True):
    """The project and user settings files, either of which may be absent."""

    project: SettingsFile = field(default_factory=SettingsFile)
    user: SettingsFile = field(default_factory=SettingsFile)
    project_given: Given = {}
    """What the project's file sets and may set: an untrusted project's file reduced to what only tightens."""
    user_given: Given = {}
    sources: tuple[Path, ...] = ()
    ignored: tuple[str, ...] = ()
    """What the project's file asked for and did not get (it is not trusted, or it would raise your limits)."""

    def merged(self) -> SettingsFile:
        """Both files as one: the project's keys over the user's, section by section."""
        if not self.project_given and not self.user_given:
            return self.project
        return convert(overlay(self.project_given, self.user_given), SettingsFile)  # both checked: it fits

    def sandbox_options(
        self, project_root: Path, mode: SandboxMode | None = None
    ) -> tuple[SandboxOptions, tuple[str, ...]]:
        """The sandbox: the user's, which the project's settings may tighten but never loosen (what they asked in vain)."""
        return layered_options(self.user.sandbox, self.project.sandbox, project_root, mode)

    def get(self, name: str) -> Any:
        """One top-level value: the project's if it sets it, else the user's, else the default."""
        return getattr(self.merged(), name)


def overlay(top: Given, below: Given) -> Given:
    """``top``'s keys over ``below``'s; sections (mappings in both) merge key by key."""
    merged = dict(below)
    for key, value in top.items():
        lower = below.get(key)
        both_sections = isinstance(value, dict) and isinstance(lower, dict)
        merged[key] = overlay(value, lower) if both_sections else value  # type: ignore[arg-type]
    return merged


def find_settings_file(folder: Path) -> Path | None:
    """The first settings file present in ``folder``."""
    for name in SETTINGS_NAMES:
        candidate = folder / name
        if candidate.exists():  # a folder or a FIFO of that name is an error when read, never skipped
            return candidate
    return None


def load_settings(where: Workspace | Path) -> LayeredSettings:
    """Read the project's and the user's settings; a broken file raises ``ConfigError``.

    An untrusted project's settings count only where they tighten the user's (see
    :mod:`engine.trust.tighten`); what they asked for in vain is kept in ``ignored``.
    """
    workspace = as_workspace(where)
    project_path = find_settings_file(workspace.config_dir)
    user_path = find_settings_file(user_config_dir())
    project, project_given = _read(project_path)
    user, user_given = _read(user_path)
    ignored: tuple[str, ...] = ()
    if project_given:
        from engine.trust.tighten import tighten_settings

        kept, refused = tighten_settings(project_given, user_given, workspace.root, trusted=workspace.trusted)
        if kept != project_given:
            project_given, project = kept, convert(kept, SettingsFile)
        assert project_path is not None
        ignored = tuple(f"{item.shown} ({_shown(project_path, workspace.root)})" for item in refused)
    return LayeredSettings(
        project=project,
        user=user,
        project_given=project_given,
        user_given=user_given,
        sources=tuple(path for path in (project_path, user_path) if path is not None),
        ignored=ignored,
    )


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _read(path: Path | None) -> tuple[SettingsFile, Given]:
    if path is None:
        return SettingsFile(), {}
    data, lines = read_document(path)
    if isinstance(data, dict) and "sandbox" in data:
        data = {**data, "sandbox": sandbox_section(data["sandbox"])}
    settings = check_document(path, {} if data is None else data, lines, SettingsFile)
    return settings, data or {}
