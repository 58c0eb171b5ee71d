"""The configuration loader: settings files, environment and flags merged once into a ``SessionConfig``.

Precedence for every value: flag > environment > project settings > user settings > built-in default.
The defaults are the field defaults of the settings models (``engine.config.settings`` and each capability's
options), so each is written once. A broken settings, permissions or plugins file raises ``ConfigError``;
no model anywhere raises ``UserError`` (after looking for a local server).
"""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct, field

from engine.checkpoints.options import CheckpointOptions
from engine.config.defaults import DEFAULT_MAX_TURNS, DEFAULT_REQUEST_TIMEOUT_S
from engine.config.settings import LayeredSettings, load_settings
from engine.context.options import ContextOptions
from engine.delegate.definitions import AgentCatalog, load_agents
from engine.delegate.options import AdvisorOptions, DelegationOptions
from engine.events import WorkingMode
from engine.hooks.options import HookSpec
from engine.image_options import ImagesOptions
from engine.mcp.config import McpServers, load_servers
from engine.mcp.options import McpOptions
from engine.memory.options import MemoryOptions
from engine.model.failures import RetryPolicy
from engine.model.resolve import ModelChoice, resolve_model
from engine.policy.config import PermissionConfig, load_permissions
from engine.records import hiding
from engine.repomap.options import RepoMapOptions
from engine.research.options import ResearchOptions
from engine.retrieval.options import ToolRetrievalOptions
from engine.run.recovery import HIVE_RECOVERIES, Recoveries
from engine.sandbox.options import SandboxMode
from engine.sandbox.status import SandboxStatus, check_sandbox
from engine.skills.options import SkillOptions, skill_options
from engine.stores.options import StoresOptions
from engine.tools.base import FileToolOptions
from engine.trust.review import TrustReview, command_items, trust_items
from engine.usage import UsageLimits
from engine.webhooks.options import WebhookOptions
from engine.workspace import Workspace, as_workspace


class Overrides(Struct, frozen=True, kw_only=True):
    """What the command line sets; None means "not given" (the layers below decide)."""

    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    mode: WorkingMode | None = None
    max_turns: int | None = None
    sandbox: SandboxMode | None = None
    max_cost_usd: float | None = None

    __repr__, __rich_repr__ = hiding("api_key")


class SessionConfig(Struct, frozen=True, kw_only=True):
    """Everything needed to build an agent and open a session, resolved and typed."""

    cwd: Path
    model: ModelChoice
    permissions: PermissionConfig
    """The permission rules of the project's and the user's files (or the built-in defaults)."""
    skills: SkillOptions = field(default_factory=SkillOptions)
    mode: WorkingMode = "work"
    max_turns: int = DEFAULT_MAX_TURNS
    limits: UsageLimits = field(default_factory=UsageLimits)
    request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    recoveries: Recoveries = HIVE_RECOVERIES
    """What the model layer and the loop do about each kind of failure: hive's table, or a host's own."""
    provider_client: str = "auto"
    """``litellm`` sends every model through litellm; ``auto`` uses hive's own client where it can."""
    tool_calls_in_text: bool = True
    """Tool calls the model writes as text in its reply are run as tool calls (``engine.model.text_call_client``)."""
    file_options: FileToolOptions = field(default_factory=FileToolOptions)
    persist: bool = True
    """Save the conversation under the user data dir."""
    mcp: McpOptions = field(default_factory=McpOptions)
    mcp_servers: McpServers = field(default_factory=McpServers)
    """The MCP servers of ``plugins.yaml`` and ``.mcp.json`` (connected when the session starts)."""
    context: ContextOptions = field(default_factory=ContextOptions)
    research: ResearchOptions = field(default_factory=ResearchOptions)
    delegation: DelegationOptions = field(default_factory=DelegationOptions)
    advisor: AdvisorOptions = field(default_factory=AdvisorOptions)
    agents: AgentCatalog = field(default_factory=AgentCatalog)
    """The agents the model may delegate to (built-ins and ``.ironhive/agents/*.md``), read once."""
    checkpoints: CheckpointOptions = field(default_factory=CheckpointOptions)
    stores: StoresOptions = field(default_factory=StoresOptions)
    """How much of the saved sessions and long outputs is kept (pruned at most once a day)."""
    webhooks: WebhookOptions = field(default_factory=WebhookOptions)
    memory: MemoryOptions = field(default_factory=MemoryOptions)
    images: ImagesOptions = field(default_factory=ImagesOptions)
    tool_retrieval: ToolRetrievalOptions = field(default_factory=ToolRetrievalOptions)
    repo_map: RepoMapOptions = field(default_factory=RepoMapOptions)
    sandbox: SandboxStatus
    """The sandbox asked for and whether it can start here (the permission defaults depend on it)."""
    sources: tuple[Path, ...] = ()
    hooks: tuple[HookSpec, ...] = ()
    """The hooks of the user's settings, then the project's (all of them run)."""
    trust: TrustReview | None = None
    """The project and its trust decision, with what its configuration asked for and did not get."""


def load_config(where: Workspace | Path, overrides: Overrides | None = None, *, persist: bool = True) -> SessionConfig:
    """Read every layer once and resolve the configuration of a session working in ``where``.

    ``where`` is the workspace the front door opened (or a folder, opened here): an untrusted project's
    files only tighten, and what they asked for in vain is in ``SessionConfig.trust``.
    Resolving the model may probe local model servers (a fraction of a second) when nothing names one.
    """
    overrides = overrides or Overrides()
    workspace = as_workspace(where)
    cwd = workspace.cwd if isinstance(where, Workspace) else where
    layers = load_settings(workspace)
    settings = layers.merged()
    choice = resolve_model(
        flag_model=overrides.model, flag_api_base=overrides.api_base, flag_api_key=overrides.api_key, settings=layers
    )
    sandbox = check_sandbox(*layers.sandbox_options(workspace.root, overrides.sandbox))
    if settings.webhooks.endpoints:
        from engine.webhooks.targets import targets_of  # imported here: only endpoints need checking

        targets_of(settings.webhooks)  # a named secret variable that is unset is an error now, not at the first turn
    permissions = load_permissions(workspace, sandboxed=sandbox.confined)
    servers = load_servers(workspace, settings.mcp) if settings.mcp.enabled else McpServers()
    commands = command_items(workspace) if not workspace.trusted else ()
    trust = TrustReview(workspace=workspace, items=trust_items(layers.ignored, permissions.ignored, servers, commands))
    return SessionConfig(
        cwd=cwd,
        model=choice,
        permissions=permissions,
        skills=skills_of(layers, cwd),
        mode=overrides.mode or settings.mode,
        max_turns=overrides.max_turns or settings.max_turns,
        limits=UsageLimits(
            max_total_tokens=settings.limits.max_total_tokens,
            max_cost_usd=overrides.max_cost_usd or settings.limits.max_cost_usd,
        ),
        request_timeout_s=settings.request_timeout,
        provider_client=settings.provider_client,
        tool_calls_in_text=settings.tool_calls_in_text,
        file_options=FileToolOptions(saved_output_max_bytes=settings.stores.output_file_max_bytes),
        persist=persist,
        mcp=settings.mcp,
        mcp_servers=servers,
        context=settings.context,
        research=settings.research,
        delegation=settings.delegation,
        advisor=settings.advisor,
        agents=load_agents(cwd),
        checkpoints=settings.checkpoints,
        stores=settings.stores,
        webhooks=settings.webhooks,
        memory=settings.memory,
        images=settings.images,
        tool_retrieval=settings.tool_retrieval,
        repo_map=settings.repo_map,
        sandbox=sandbox,
        sources=layers.sources,
        hooks=(*layers.user.hooks, *layers.project.hooks),
        trust=trust,
    )


def skills_of(layers: LayeredSettings, cwd: Path) -> SkillOptions:
    """The skill options of the settings files (extra roots resolved against the file that names them)."""
    return skill_options(layers.project.skills, layers.user.skills, cwd)


def load_skill_options(cwd: Path) -> SkillOptions:
    """The skill options of ``cwd``'s settings, for commands that need only those (``hive skills list``)."""
    return skills_of(load_settings(cwd), cwd)
