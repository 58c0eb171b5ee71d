"""Building an agent: the capabilities folded into one loop (tools behind the policy, instructions, context).

``build_agent`` has no side effects: it opens no session file and reads no settings (the
``SessionConfig`` holds them), so a sub-agent is built exactly like the root agent. Everything an
agent has beyond its configuration comes from its capabilities (``engine.capabilities``); the
defaults are ``configured_capabilities(config)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

from msgspec import Struct, field
from msgspec.structs import replace

from engine.capabilities import BuildContext, Capability, ChildBuilder, Instructions, ToolProvider, Tools
from engine.config.loader import SessionConfig
from engine.context.compaction import Compactor
from engine.context.estimated_usage import EstimatedUsage
from engine.context.management import ContextManagement
from engine.context.served_window import ServedWindows
from engine.context.window import Windows
from engine.conversation import Conversation
from engine.delegate.advisor import AdvisorProvider
from engine.delegate.provider import AgentsProvider, SharedProvider
from engine.events import ROOT_AGENT
from engine.instructions import BASE_INSTRUCTIONS, InstructionContext, build_instructions, default_contributors
from engine.mcp.provider import McpProvider
from engine.model.client_settings import ModelSettings
from engine.model.model_check import check_api_key
from engine.model.providers import anthropic_endpoint, openai_compatible_endpoint, responses_endpoint
from engine.model.slot import ModelSlot
from engine.model.text_call_client import TextToolCalls
from engine.model.types import ModelClient
from engine.policy.compose import guarded_toolset, result_guards
from engine.policy.gate import Approver, Policy
from engine.policy.guards import ResultGuard
from engine.policy.modes import ModeManager
from engine.policy.unconfined import RunOutsideOnce, gate_policy
from engine.project_guard import ProjectGuard
from engine.retrieval.toolset import ToolRetrieval
from engine.run.loop import AgentLoop, LoopOptions, ToolEnvironment
from engine.run.state import Account
from engine.sandbox.base import commands_can_write
from engine.sandbox.status import sandbox_for
from engine.skills.provider import SkillsProvider
from engine.tools.base import Toolset
from engine.tools.builtin import builtin_tools
from engine.tools.compose import CombinedToolset
from engine.tools.registry import ToolRegistry
from engine.tools.result_cap import ResultCap, result_limit
from engine.tools.todo import TodoStore
from engine.tools.web.options import web_tool_options
from engine.tracking import Tracker


class BuiltinTools:
    """The built-in tools (files, search, shell, todos, web)."""

    def toolset(self, context: BuildContext) -> Toolset | None:
        unsafe = commands_can_write(context.config.sandbox.options, context.config.cwd)
        web = web_tool_options(context.config)
        return ToolRegistry(builtin_tools(context.todos, sandbox=context.sandbox, unsafe_dirs=unsafe, web=web))


def default_providers() -> list[ToolProvider]:
    """What every session offers: the built-in tools, the skills, the MCP servers' tools, the agents, the advisor.

    The agents' runs get their tools from the same providers (the MCP servers' toolset is shared, not reopened).
    """
    tools: list[ToolProvider] = [BuiltinTools(), SkillsProvider(), SharedProvider(McpProvider())]
    return [*tools, AgentsProvider(tools), AdvisorProvider()]


def configured_capabilities(config: SessionConfig) -> list[Capability]:
    """What an agent has when the host adds nothing: the project folder's guard, the instructions, the providers'
    tools, long-term memory, tool retrieval, context management, then webhooks and hooks when the settings
    configure them (each imported only then)."""
    providers = default_providers()
    if config.memory.enabled:
        from engine.memory.provider import MemoryProvider

        providers.append(MemoryProvider())
    capabilities: list[Capability] = [ProjectGuard(config.cwd), Instructions(*default_contributors())]
    capabilities += map(Tools, providers)
    capabilities += [ToolRetrieval(), ContextManagement()]
    capabilities += _repo_map_section(config)
    if config.webhooks.endpoints:
        from engine.webhooks.capability import webhooks_for  # httpx only for sessions that send webhooks

        capabilities += [c for c in (webhooks_for(config),) if c is not None]
    if config.hooks:
        from engine.hooks.capability import HooksCapability  # the hooks' runner only when hooks are configured

        capabilities.append(HooksCapability())
    return capabilities


def _repo_map_section(config: SessionConfig) -> list[Capability]:
    """The repository map in the first request, when the settings or the model's window want it."""
    from engine.context.repo_map_section import RepoMapSection, wants_repo_map

    if not wants_repo_map(config):
        return []
    return [RepoMapSection(config, agent_policy(config))]


def prepare_repo_map(config: SessionConfig) -> None:
    """Build and keep the session's repository map ahead of its first request (nothing when it has none)."""
    for section in _repo_map_section(config):
        section.contribute(InstructionContext(cwd=config.cwd))


class Agent(Struct, kw_only=True):
    """A composed agent: its loop and the parts a session reaches through."""

    id: str
    loop: AgentLoop
    tools: CombinedToolset
    """The capabilities' toolsets, before the policy: what is started and stopped."""
    modes: ModeManager
    todos: TodoStore
    tracker: Tracker
    guards: tuple[ResultGuard, ...]
    """Every result guard, also applied to results the host adds for its own tools."""
    policy: Policy
    """What the approval gate asks of every call (the rules, plus what the sandbox's state adds)."""
    compactor: Compactor
    """Compacts the conversation into a task ledger on request (``/compact``)."""
    capabilities: tuple[Capability, ...] = ()
    """What the agent was built with; the session runs their session parts."""
    windows: Windows = field(default_factory=Windows)
    """The context windows the agent works with (the setting, and what providers said in overflow errors)."""

    async def start(self) -> None:
        """Start the toolsets that own processes or connections (they connect in the background)."""
        await self.tools.start()

    async def stop(self) -> None:
        """Stop them again, every one even if one fails."""
        await self.tools.stop()


def build_agent(
    config: SessionConfig,
    *,
    approver: Approver | None,
    data_dir: Path,
    capabilities: Sequence[Capability] | None = None,
    client: ModelClient | None = None,
    conversation: Conversation | None = None,
    agent_id: str = ROOT_AGENT,
    modes: ModeManager | None = None,
    instructions: str = BASE_INSTRUCTIONS,
) -> Agent:
    """Compose an agent from ``config`` and its capabilities (None: ``configured_capabilities(config)``);
    tools keep files for the model (full command output) in ``data_dir``; the system prompt starts with
    ``instructions``."""
    context = build_context(config, approver, data_dir, capabilities, client, conversation, agent_id, modes)
    caps = context.capabilities
    tools = CombinedToolset([t for c in caps if (t := c.toolset(context)) is not None])
    policy = agent_policy(config)
    tracker = Tracker(context.model.name, observers=[o for c in caps for o in c.tracking_observers()])
    toolset = ResultCap(policed(tools, context, policy), partial(_result_limit, context))
    loop = agent_loop(context, toolset, tracker, build_instructions(config.cwd, caps, instructions))
    guards = (*result_guards(config.permissions.guards, (config.model.api_key,)), *_result_guards(caps))
    return Agent(
        id=agent_id,
        loop=loop,
        tools=tools,
        modes=context.modes,
        todos=context.todos,
        tracker=tracker,
        guards=guards,
        policy=policy,
        compactor=context.compactor,
        capabilities=caps,
        windows=context.windows,
    )


def agent_loop(context: BuildContext, toolset: Toolset, tracker: Tracker, instructions: str) -> AgentLoop:
    """The loop of the agent ``context`` builds, with the context policy its capabilities fold into."""
    config = context.config
    context_policy = None
    for capability in context.capabilities:
        context_policy = capability.context_policy(context_policy, context)
    return AgentLoop(
        client=context.model,
        toolset=toolset,
        environment=ToolEnvironment(cwd=config.cwd, data_dir=context.data_dir, file_options=config.file_options),
        instructions=instructions,
        options=LoopOptions(
            max_turns=config.max_turns,
            limits=config.limits,
            vision=dict(config.images.vision),
            recoveries=config.recoveries,
        ),
        conversation=context.conversation,
        turn_observers=[o for c in context.capabilities for o in c.turn_observers()],
        hooks=tracker,
        context=context_policy,
        agent_id=context.agent_id,
        account=context.account,
    )


def build_context(
    config: SessionConfig,
    approver: Approver | None,
    data_dir: Path,
    capabilities: Sequence[Capability] | None,
    client: ModelClient | None,
    conversation: Conversation | None,
    agent_id: str,
    modes: ModeManager | None,
) -> BuildContext:
    """What the capabilities of the agent being built may use."""
    caps = tuple(capabilities) if capabilities is not None else tuple(configured_capabilities(config))
    slot = ModelSlot(client or model_client(config), partial(model_client, config))
    modes = modes or ModeManager(config.mode)
    return BuildContext(
        config=config,
        agent_id=agent_id,
        modes=modes,
        todos=TodoStore(),
        sandbox=sandbox_for(config.sandbox),
        model=slot,
        account=Account(),
        conversation=conversation if conversation is not None else Conversation(),
        windows=Windows(
            config.context.context_window, ServedWindows(config.model.api_base), config.context.guessed_window
        ),
        compactor=Compactor(lambda: slot.client),
        build_child=child_builder(approver, data_dir, modes),
        capabilities=caps,
        mcp_call_guards=tuple(g for c in caps for g in c.mcp_call_guards()),
        approver=approver,
        data_dir=data_dir,
    )


def agent_policy(config: SessionConfig) -> Policy:
    """What the approval gate asks of every call: the rules, plus what the sandbox's state adds."""
    sandbox = config.sandbox
    confined = sandbox.options if sandbox.confined else None
    return gate_policy(config.permissions, sandbox.problem if sandbox.failed else None, confined=confined)


def policed(tools: Toolset, context: BuildContext, policy: Policy) -> Toolset:
    """The tools offered (after every capability's ``offered_tools``) behind the policy and the approved-call slot."""
    offered = tools
    for capability in context.capabilities:
        offered = capability.offered_tools(offered, context)
    config = context.config
    return guarded_toolset(
        offered,
        config.permissions,
        context.approver,
        context.modes,
        _result_guards(context.capabilities),
        approved_call_wrappers=[w for c in context.capabilities for w in c.approved_call_wrappers(context)],
        gate_policy=policy,
        retry_offer=RunOutsideOnce() if config.sandbox.confined else None,
        known_secrets=(config.model.api_key,),
    )


def _result_guards(capabilities: Sequence[Capability]) -> tuple[ResultGuard, ...]:
    return tuple(g for c in capabilities for g in c.result_guards())


def _result_limit(context: BuildContext) -> int:
    """The longest tool result the model gets: a share of the current model's window, at most the setting."""
    window = context.windows.of(context.model.name).tokens
    return result_limit(window, context.config.context.max_tool_result_chars)


def child_builder(approver: Approver | None, data_dir: Path, modes: ModeManager) -> ChildBuilder:
    """Builds sub-agents with the parent's approver, files and modes."""

    def build(
        config: SessionConfig,
        capabilities: Sequence[Capability],
        *,
        instructions: str,
        client: ModelClient,
        agent_id: str,
    ) -> AgentLoop:
        agent = build_agent(
            config,
            approver=approver,
            data_dir=data_dir,
            capabilities=capabilities,
            client=client,
            agent_id=agent_id,
            modes=modes,
            instructions=instructions,
        )
        return agent.loop

    return build


def model_settings(config: SessionConfig, model: str | None = None) -> ModelSettings:
    """How to reach the configured model (or ``model`` at the same endpoint)."""
    choice = config.model if model is None else replace(config.model, model=model)
    return ModelSettings(
        model=choice.model,
        api_base=choice.api_base,
        api_key=choice.api_key,
        model_source=choice.source,
        timeout_s=config.request_timeout_s,
        retry=replace(config.retry, recoveries=config.recoveries),
    )


def model_client(config: SessionConfig, model: str | None = None) -> ModelClient:
    """The client for the configured model (or ``model`` at the same endpoint); usage it is not told is estimated,
    and tool calls the model wrote as text become tool calls (unless the settings turn that off)."""
    client = provider_client(config, model)
    if config.tool_calls_in_text:
        client = TextToolCalls(client)
    return EstimatedUsage(client)


def provider_client(config: SessionConfig, model: str | None = None) -> ModelClient:
    """The protocol client: hive's own for OpenAI-compatible providers, OpenAI's Responses API and Anthropic, else litellm."""
    settings = model_settings(config, model)
    check_api_key(settings.model, settings.api_base, settings.api_key, settings.model_source)
    client = _direct_client(settings, force_litellm=config.provider_client == "litellm")
    if client is not None:
        return client
    from engine.model.litellm_client import LiteLLMClient

    return LiteLLMClient(settings)


def check_model_keys(config: SessionConfig, *, main: bool = True) -> None:
    """``UserError`` before any request when a model the session may call has no key: the main model (unless
    ``main`` is False: the host brings its own client), and the advisor's and the agents' models when their
    provider is another (they are reached at the session's endpoint, with its key)."""
    choice = config.model
    if main:
        check_api_key(choice.model, choice.api_base, choice.api_key, choice.source)
    provider = choice.model.partition("/")[0]
    for model, role in role_models(config):
        if model.partition("/")[0] != provider:
            check_api_key(model, choice.api_base, choice.api_key, role)


def role_models(config: SessionConfig) -> list[tuple[str, str]]:
    """The models the advisor and the agents offered would call, each with the role and where it is set."""
    roles: list[tuple[str, str]] = []
    if config.advisor.model and config.advisor.max_calls:
        roles.append((config.advisor.model, "the advisor: advisor.model in the settings"))
    if config.delegation.max_depth > 0:
        agents = config.agents.agents.values()
        roles += [(a.model, f"agent {a.name}: its file {a.source}") for a in agents if a.model]
    return roles


def needs_litellm(config: SessionConfig) -> bool:
    """Whether the configured model goes through litellm (so its import is worth starting early)."""
    return _direct_client(model_settings(config), force_litellm=config.provider_client == "litellm") is None


def _direct_client(settings: ModelSettings, *, force_litellm: bool) -> ModelClient | None:
    """hive's own client for the model's protocol, if it speaks one of them (each imported only when chosen)."""
    endpoint = openai_compatible_endpoint(settings, force_litellm=force_litellm)
    if endpoint is not None:
        from engine.model.chat_providers import chat_client_for

        return chat_client_for(settings, endpoint)
    endpoint = responses_endpoint(settings, force_litellm=force_litellm)
    if endpoint is not None:
        from engine.model.openai_responses import OpenAIResponsesClient

        return OpenAIResponsesClient(settings, endpoint)
    endpoint = anthropic_endpoint(settings, force_litellm=force_litellm)
    if endpoint is not None:
        from engine.model.anthropic_client import AnthropicClient

        return AnthropicClient(settings, endpoint)
    return None
