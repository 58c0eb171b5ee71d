"""Building an agent: the providers' tools behind the policy, the instructions, the model client, the tracker.

``build_agent`` has no side effects: it opens no session file and reads no settings (the
``SessionConfig`` holds them), so a sub-agent is built exactly like the root agent. Capabilities
attach as *tool providers* (each gives a toolset; one that is also an ``InstructionContributor``
adds its section to the system prompt), as *wrappers* in the policy's approved-call slot, as a
*context policy*, or as turn and tracking observers, all passed in ``Extensions``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct, field
from msgspec.structs import replace

from engine.config import SessionConfig
from engine.context.caching import PromptCaching
from engine.context.compaction import CompactionLimit, Compactor
from engine.context.estimated_usage import EstimatedUsage
from engine.context.masking import ObservationMasking
from engine.context.options import ContextOptions
from engine.context.policy import ContextPolicy
from engine.context.recall import recall_toolset
from engine.context.reminder import GoalReminder
from engine.context.window import Windows
from engine.conversation import Conversation
from engine.delegate.advisor import AdvisorProvider
from engine.delegate.provider import AgentsProvider, SharedProvider
from engine.events import ROOT_AGENT
from engine.instructions import BASE_INSTRUCTIONS, InstructionContributor, build_instructions, default_contributors
from engine.loop import AgentLoop, LoopOptions, ToolEnvironment, TurnObserver
from engine.mcp.provider import McpProvider
from engine.model.client_settings import ModelSettings
from engine.model.providers import anthropic_endpoint, openai_compatible_endpoint, responses_endpoint
from engine.model.types import ModelClient
from engine.policy.compose import guarded_toolset, result_guards
from engine.policy.gate import Approver, Policy
from engine.policy.guards import CallGuard, ResultGuard
from engine.policy.modes import ModeManager
from engine.policy.unconfined import RunOutsideOnce, gate_policy
from engine.retrieval.options import ToolRetrievalOptions
from engine.sandbox.base import Sandbox, commands_can_write
from engine.sandbox.status import sandbox_for
from engine.skills.provider import SkillsProvider
from engine.tools.base import Toolset
from engine.tools.builtin import builtin_tools
from engine.tools.compose import CombinedToolset, ToolsetWrapper
from engine.tools.registry import ToolRegistry
from engine.tools.result_cap import ResultCap, result_limit
from engine.tools.todo import TodoStore
from engine.tracking import Tracker, TrackingObserver, TrackingOptions

if TYPE_CHECKING:
    from engine.hooks.points import Hooks


class BuildContext(Struct, frozen=True, kw_only=True):
    """What a tool provider may use while an agent is built."""

    config: SessionConfig
    agent_id: str
    modes: ModeManager
    todos: TodoStore
    sandbox: Sandbox
    """What confines shell commands (no sandbox when it is off or cannot start)."""
    mcp_call_guards: tuple[CallGuard, ...] = ()
    """Guards every MCP call passes before it is sent and whose verdict its result passes afterwards."""
    approver: Approver | None = None
    """Who decides the calls the rules ask about (a sub-agent's calls reach the same one)."""
    data_dir: Path | None = None
    """Where tools keep files for the model."""
    loop: Callable[[], AgentLoop] | None = None
    """The agent's loop once built, for tools that act for the agent when called (its model, usage, history)."""
    extensions: Extensions | None = None
    """What the host added to the agent (a sub-agent keeps its wrappers and guards)."""


class ToolProvider(Protocol):
    """Offers tools to an agent being built: the built-ins, the skills, an MCP server, the agents."""

    def toolset(self, context: BuildContext) -> Toolset | None:
        """The tools to offer (None for none). A toolset with ``start``/``stop`` is started with the session."""
        ...


class BuiltinTools:
    """The built-in tools (files, search, shell, todos)."""

    def toolset(self, context: BuildContext) -> Toolset | None:
        unsafe = commands_can_write(context.config.sandbox.options, context.config.cwd)
        return ToolRegistry(builtin_tools(context.todos, sandbox=context.sandbox, unsafe_dirs=unsafe))


def default_providers() -> list[ToolProvider]:
    """What every session offers: the built-in tools, the skills, the MCP servers' tools, the agents, the advisor.

    The agents' runs get their tools from the same providers (the MCP servers' toolset is shared, not reopened).
    """
    tools: list[ToolProvider] = [BuiltinTools(), SkillsProvider(), SharedProvider(McpProvider())]
    return [*tools, AgentsProvider(tools), AdvisorProvider()]


def configured_providers(config: SessionConfig) -> list[ToolProvider]:
    """The default providers, then long-term memory when the settings enable it (only then is it imported)."""
    providers = default_providers()
    if config.memory.enabled:
        from engine.memory.provider import MemoryProvider

        providers.append(MemoryProvider())
    return providers


def retrieving(tools: Toolset, options: ToolRetrievalOptions, conversation: Conversation) -> Toolset:
    """``tools`` offering each request only the MCP tools that fit it, when retrieval is enabled."""
    if not options.enabled:
        return tools
    from engine.retrieval.toolset import RetrievingToolset, retriever_for

    return RetrievingToolset(tools, options, lambda: conversation.messages, retriever_for(options))


class Extensions(Struct, frozen=True, kw_only=True):
    """What a host or a capability adds to an agent beyond its configuration."""

    providers: tuple[ToolProvider, ...] | None = None
    """Where the tools come from; None means ``default_providers()``."""
    contributors: tuple[InstructionContributor, ...] | None = None
    """System-prompt sections before the providers' own; None means ``default_contributors()``."""
    base_instructions: str = BASE_INSTRUCTIONS
    """What the system prompt starts with (a sub-agent's is its definition's body)."""
    approved_call_wrappers: tuple[ToolsetWrapper, ...] = ()
    """Wrappers that see each call after it was approved, just before it runs (checkpoints)."""
    result_guards: tuple[ResultGuard, ...] = ()
    """Guards on every result, after the ones the permission files switch on."""
    mcp_call_guards: tuple[CallGuard, ...] = ()
    """Guards on every MCP call, before it is sent (a guard that raises blocks it) and on its result."""
    context: ContextPolicy | None = None
    """What each request carries of the history; None: observation masking, with the ``recall_result`` tool."""
    turn_observers: tuple[TurnObserver, ...] = ()
    tracking: TrackingOptions = field(default_factory=TrackingOptions)
    tracking_observers: tuple[TrackingObserver, ...] = ()


class Agent(Struct, kw_only=True):
    """A composed agent: its loop and the parts a session reaches through."""

    id: str
    loop: AgentLoop
    tools: CombinedToolset
    """The providers' toolsets, before the policy: what is started and stopped."""
    modes: ModeManager
    todos: TodoStore
    tracker: Tracker
    guards: tuple[ResultGuard, ...]
    """Every result guard, also applied to results the host adds for its own tools."""
    policy: Policy
    """What the approval gate asks of every call (the rules, plus what the sandbox's state adds)."""
    compactor: Compactor | None = None
    """Compacts the conversation into a task ledger on request (``/compact``); None with a custom context policy."""
    windows: Windows = field(default_factory=Windows)
    """The context windows the agent works with (the setting, and what providers said in overflow errors)."""
    hooks: Hooks | None = None
    """The configured hooks (None when there are none); the session runs those of its own points."""

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
    extensions: Extensions | None = None,
    client: ModelClient | None = None,
    conversation: Conversation | None = None,
    agent_id: str = ROOT_AGENT,
    modes: ModeManager | None = None,
) -> Agent:
    """Compose an agent from ``config``; tools keep files for the model (full command output) in ``data_dir``."""
    extensions = extensions or Extensions()
    modes = modes or ModeManager(config.mode)
    todos = TodoStore()
    context = BuildContext(
        config=config,
        agent_id=agent_id,
        modes=modes,
        todos=todos,
        sandbox=sandbox_for(config.sandbox),
        mcp_call_guards=extensions.mcp_call_guards,
        approver=approver,
        data_dir=data_dir,
        loop=lambda: loop,
        extensions=extensions,
    )
    providers = list(extensions.providers) if extensions.providers is not None else configured_providers(config)
    conversation = conversation if conversation is not None else Conversation()
    toolsets = [t for p in providers if (t := p.toolset(context)) is not None]
    context_policy = extensions.context
    windows = Windows(config.context.context_window)
    compactor: Compactor | None = None
    if context_policy is None:
        compactor = Compactor(lambda: loop.client)  # the loop's client at the time (/model may switch it)
        context_policy = default_context_policy(
            config.context, lambda: loop.client.model, conversation, compactor, windows
        )
        history = conversation
        toolsets.append(recall_toolset(lambda: history.messages))
    tools = CombinedToolset(toolsets)
    offered = retrieving(tools, config.tool_retrieval, conversation)
    guards = (*result_guards(config.permissions.guards, (config.model.api_key,)), *extensions.result_guards)
    sandbox = config.sandbox
    confined = sandbox.options if sandbox.confined else None
    policy = gate_policy(config.permissions, sandbox.problem if sandbox.failed else None, confined=confined)
    hooks, hook_wrappers = configured_hooks(config, agent_id, approver, modes)
    toolset = guarded_toolset(
        offered,
        config.permissions,
        approver,
        modes,
        extensions.result_guards,
        approved_call_wrappers=(*hook_wrappers, *extensions.approved_call_wrappers),
        gate_policy=policy,
        retry_offer=RunOutsideOnce() if config.sandbox.confined else None,
        known_secrets=(config.model.api_key,),
    )
    max_result = config.context.max_tool_result_chars
    toolset = ResultCap(toolset, lambda: result_limit(windows.of(loop.client.model).tokens, max_result))
    contributors = list(extensions.contributors) if extensions.contributors is not None else default_contributors()
    contributors += [p for p in providers if isinstance(p, InstructionContributor)]
    tracker = Tracker(config.model.model, options=extensions.tracking, observers=extensions.tracking_observers)
    loop = AgentLoop(
        client=client or model_client(config),
        toolset=toolset,
        environment=ToolEnvironment(cwd=config.cwd, data_dir=data_dir, file_options=config.file_options),
        instructions=build_instructions(config.cwd, contributors, extensions.base_instructions),
        options=LoopOptions(max_turns=config.max_turns, limits=config.limits),
        conversation=conversation,
        turn_observers=extensions.turn_observers,
        hooks=tracker,
        context=context_policy,
        agent_id=agent_id,
    )
    return Agent(
        id=agent_id,
        loop=loop,
        tools=tools,
        modes=modes,
        todos=todos,
        tracker=tracker,
        guards=guards,
        policy=policy,
        compactor=compactor,
        windows=windows,
        hooks=hooks,
    )


def configured_hooks(
    config: SessionConfig, agent_id: str, approver: Approver | None, modes: ModeManager
) -> tuple[Hooks | None, tuple[ToolsetWrapper, ...]]:
    """The agent's hooks and the wrapper that runs the tool hooks (None and none when no hook is configured)."""
    if not config.hooks:
        return None, ()
    # imported here: the hooks' runner and wrapper are only needed when the settings configure hooks
    from engine.hooks.points import build_hooks
    from engine.hooks.toolset import hook_wrapper

    hooks = build_hooks(config.hooks, config.sandbox, config.cwd, agent_id)
    return hooks, hook_wrapper(hooks, approver, modes)


def default_context_policy(
    options: ContextOptions,
    model: Callable[[], str],
    conversation: Conversation,
    compactor: Compactor,
    windows: Windows,
) -> ContextPolicy:
    """Observation masking with compaction ahead of time and on overflow, cache breakpoints, goal reminders."""
    limit = CompactionLimit(model, options.compact_at, windows)
    policy: ContextPolicy = ObservationMasking(
        options.observation_masking_protected_rounds, compactor, limit, options.observation_masking_batch_rounds
    )
    if options.prompt_caching:
        policy = PromptCaching(policy, model)
    return GoalReminder(policy, lambda: conversation.messages, options.goal_reminder_after_rounds)


def model_settings(config: SessionConfig, model: str | None = None) -> ModelSettings:
    """How to reach the configured model (or ``model`` at the same endpoint)."""
    choice = config.model if model is None else replace(config.model, model=model)
    return ModelSettings(
        model=choice.model,
        api_base=choice.api_base,
        api_key=choice.api_key,
        model_source=choice.source,
        timeout_s=config.request_timeout_s,
        retry=config.retry,
    )


def model_client(config: SessionConfig, model: str | None = None) -> ModelClient:
    """The client for the configured model (or ``model`` at the same endpoint); usage it is not told is estimated."""
    return EstimatedUsage(provider_client(config, model))


def provider_client(config: SessionConfig, model: str | None = None) -> ModelClient:
    """The protocol client: hive's own for OpenAI-compatible providers, OpenAI's Responses API and Anthropic, else litellm."""
    settings = model_settings(config, model)
    client = _direct_client(settings, force_litellm=config.provider_client == "litellm")
    if client is not None:
        return client
    from engine.model.litellm_client import LiteLLMClient

    return LiteLLMClient(settings)


def needs_litellm(config: SessionConfig) -> bool:
    """Whether the configured model goes through litellm (so its import is worth starting early)."""
    return _direct_client(model_settings(config), force_litellm=config.provider_client == "litellm") is None


def _direct_client(settings: ModelSettings, *, force_litellm: bool) -> ModelClient | None:
    """hive's own client for the model's protocol, if it speaks one of them (each imported only when chosen)."""
    endpoint = openai_compatible_endpoint(settings, force_litellm=force_litellm)
    if endpoint is not None:
        from engine.model.openai_compat import OpenAICompatClient

        return OpenAICompatClient(settings, endpoint)
    endpoint = responses_endpoint(settings, force_litellm=force_litellm)
    if endpoint is not None:
        from engine.model.openai_responses import OpenAIResponsesClient

        return OpenAIResponsesClient(settings, endpoint)
    endpoint = anthropic_endpoint(settings, force_litellm=force_litellm)
    if endpoint is not None:
        from engine.model.anthropic_client import AnthropicClient

        return AnthropicClient(settings, endpoint)
    return None
