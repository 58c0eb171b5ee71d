"""The one seam every capability plugs into: a ``Capability`` is a set of optional parts an agent folds in.

Each part defaults to nothing, so a capability overrides only what it has:

- building the agent (``engine.agent.build_agent``): the tools it offers (``toolset``), its section of the
  system prompt (``contribute``), a wrapper of the tools offered before the policy (``offered_tools``),
  wrappers in the approved-call slot, result guards, MCP call guards, a context-policy layer, turn
  observers and tracking observers;
- the session around the root agent (``engine.session.Session``): ``start`` and ``stop`` with the
  session, the run of a prompt (``run``, with ``cancel``), and every event of the stream (``observe``);
- a sub-agent built inside the session keeps what ``for_child`` returns (by default nothing).

Tool providers (``ToolProvider``) offer tools only; ``Tools`` makes one a capability. Nothing here
imports the composition root: a capability builds a child agent through ``BuildContext.build_child``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

from engine.config.loader import SessionConfig
from engine.context.compaction import Compactor
from engine.context.policy import ContextPolicy
from engine.context.window import Windows
from engine.conversation import Conversation
from engine.events import Event, WorkingMode
from engine.instructions import InstructionContext, InstructionContributor
from engine.model.slot import ModelSlot
from engine.model.types import CallOptions, ModelClient
from engine.policy.gate import Approver
from engine.policy.guards import CallGuard, ResultGuard
from engine.policy.modes import ModeManager
from engine.run.loop import AgentLoop, TurnObserver
from engine.run.state import Account
from engine.sandbox.base import Sandbox
from engine.tools.base import Toolset
from engine.tools.compose import ToolsetWrapper
from engine.tools.todo import TodoStore
from engine.usage import Usage

if TYPE_CHECKING:
    from engine.tracking import TrackingObserver


class ChildBuilder(Protocol):
    """Builds an agent inside the one being built (a sub-agent), with the parent's approver, modes and files."""

    def __call__(
        self,
        config: SessionConfig,
        capabilities: Sequence[Capability],
        *,
        instructions: str,
        client: ModelClient,
        agent_id: str,
    ) -> AgentLoop: ...


class BuildContext(Struct, frozen=True, kw_only=True):
    """What a capability may use while an agent is built (and later, when its tools are called)."""

    config: SessionConfig
    agent_id: str
    modes: ModeManager
    todos: TodoStore
    sandbox: Sandbox
    """What confines shell commands (no sandbox when it is off or cannot start)."""
    model: ModelSlot
    """The agent's current model (``/model`` switches it)."""
    account: Account
    """What the agent's runs cost: count here what a tool spends on the agent's behalf."""
    conversation: Conversation
    windows: Windows
    """The context windows the agent works with."""
    compactor: Compactor
    """Compacts the conversation into the task ledger with the agent's current model."""
    build_child: ChildBuilder
    data_dir: Path
    """Where tools keep files for the model."""
    capabilities: tuple[Capability, ...] = ()
    """Every capability of the agent being built (a sub-agent keeps what each one's ``for_child`` gives)."""
    mcp_call_guards: tuple[CallGuard, ...] = ()
    """Guards every MCP call passes before it is sent and whose verdict its result passes afterwards."""
    approver: Approver | None = None
    """Who decides the calls the rules ask about (a sub-agent's calls reach the same one)."""


class ToolProvider(Protocol):
    """Offers tools to an agent being built: the built-ins, the skills, an MCP server, the agents."""

    def toolset(self, context: BuildContext) -> Toolset | None:
        """The tools to offer (None for none). A toolset with ``start``/``stop`` is started with the session."""
        ...


class SessionView(Protocol):
    """What a capability may read of the session it runs in."""

    config: SessionConfig

    @property
    def id(self) -> str | None: ...

    @property
    def model(self) -> str: ...

    @property
    def mode(self) -> WorkingMode: ...

    @property
    def usage(self) -> Usage: ...


class Capability:
    """One capability of an agent; every part does nothing until a subclass overrides it."""

    def toolset(self, context: BuildContext) -> Toolset | None:
        """The tools it offers (None for none); a toolset with ``start``/``stop`` is started with the session."""
        return None

    def contribute(self, context: InstructionContext) -> str | None:
        """Its section of the system prompt (None for none)."""
        return None

    def offered_tools(self, tools: Toolset, context: BuildContext) -> Toolset:
        """The tools the model is offered, from every capability's (before the policy judges the calls)."""
        return tools

    def approved_call_wrappers(self, context: BuildContext) -> tuple[ToolsetWrapper, ...]:
        """Wrappers that see each call after it was approved, just before it runs."""
        return ()

    def result_guards(self) -> tuple[ResultGuard, ...]:
        """Guards on every result, after the ones the permission files switch on."""
        return ()

    def mcp_call_guards(self) -> tuple[CallGuard, ...]:
        """Guards on every MCP call, before it is sent (a guard that raises blocks it) and on its result."""
        return ()

    def context_policy(self, inner: ContextPolicy | None, context: BuildContext) -> ContextPolicy | None:
        """What each request carries of the history, given the layer below (None: everything, as it is)."""
        return inner

    def turn_observers(self) -> tuple[TurnObserver, ...]:
        """Called after every model turn (their answer, if any, is added for the model)."""
        return ()

    def tracking_observers(self) -> tuple[TrackingObserver, ...]:
        """Told about every tracked scope (model turns, tool calls) as it closes."""
        return ()

    def for_child(self) -> Capability | None:
        """What a sub-agent built inside this agent keeps of the capability (None: nothing)."""
        return None

    async def start(self, session: SessionView) -> tuple[str, ...]:
        """Called once the session's toolsets started; what the person must be told once."""
        return ()

    async def stop(self, session: SessionView) -> None:
        """Called when the session closes (in the reverse order of ``start``)."""

    def run(self, prompt: str, override: CallOptions | None, loop: AgentLoop) -> AsyncGenerator[Event, None] | None:
        """The run of ``prompt`` in its own way (the first capability that gives one runs it), or None."""
        return None

    def cancel(self) -> bool:
        """Stop what its ``run`` is doing outside the loop; False when it is not (the loop is then cancelled)."""
        return False

    def observe(self, event: Event, session: SessionView) -> None:
        """Sees every event of the session's stream, in order (it must not block)."""


class Tools(Capability):
    """A tool provider as a capability: its tools, and its section of the system prompt if it contributes one."""

    def __init__(self, provider: ToolProvider) -> None:
        self.provider = provider

    def toolset(self, context: BuildContext) -> Toolset | None:
        return self.provider.toolset(context)

    def contribute(self, context: InstructionContext) -> str | None:
        provider = self.provider
        return provider.contribute(context) if isinstance(provider, InstructionContributor) else None


class Instructions(Capability):
    """Sections of the system prompt, from ``contributors`` in order."""

    def __init__(self, *contributors: InstructionContributor) -> None:
        self.contributors = contributors

    def contribute(self, context: InstructionContext) -> str | None:
        sections = [s for c in self.contributors if (s := c.contribute(context))]
        return "\n\n".join(sections) or None
