"""A session: the agent loop composed from configuration, with its conversation saved as it goes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.conversation import Conversation
from engine.events import Event
from engine.instructions import InstructionContributor, build_instructions, default_contributors
from engine.loop import AgentLoop, LoopOptions, ToolEnvironment, TurnObserver
from engine.model.failures import RetryPolicy
from engine.model.litellm_client import LiteLLMClient, ModelSettings
from engine.model.resolve import ModelChoice
from engine.model.types import CallOptions, Message, ModelClient
from engine.paths import user_data_dir
from engine.policy.compose import guarded_toolset, result_guards
from engine.policy.config import PermissionConfig, load_permissions
from engine.policy.gate import Approver
from engine.policy.guards import ResultGuard, apply_guards
from engine.policy.modes import ModeManager
from engine.sessions import Redactor, SessionStore, SessionWriter
from engine.skills.options import SkillOptions
from engine.skills.wiring import session_skills, skill_contributors, skill_tools
from engine.tools.base import FileToolOptions, Tool, ToolResult, Toolset
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry
from engine.tools.todo import TodoStore
from engine.tracking import Tracker, TrackingObserver, TrackingOptions
from engine.usage import UsageLimits


@dataclass(frozen=True, kw_only=True)
class SessionConfig:
    """Everything needed to open a session."""

    cwd: Path
    model: ModelChoice
    mode: str = "work"
    max_turns: int = 50
    limits: UsageLimits = field(default_factory=UsageLimits)
    request_timeout_s: float = 600.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    file_options: FileToolOptions = field(default_factory=FileToolOptions)
    skills: SkillOptions | None = None
    """Which skills the session offers; None reads the ``skills`` section of the settings files."""
    persist: bool = True
    """Save the conversation under the user data dir."""
    permissions: PermissionConfig | None = None
    """The permission rules; None reads them from the project's and the user's files."""


class Session:
    """An agent loop plus the session file it writes to."""

    def __init__(
        self,
        loop: AgentLoop,
        writer: SessionWriter | None,
        todos: TodoStore,
        tracker: Tracker,
        modes: ModeManager | None = None,
        guards: Sequence[ResultGuard] = (),
    ) -> None:
        self.loop = loop
        self.writer = writer
        self.todos = todos
        self.tracker = tracker
        self.modes = modes or ModeManager()
        """Plan / work / hitl; ``modes.switch("plan")`` changes what the next model turn is offered."""
        self.guards = tuple(guards)
        """The result guards, which also judge results the host adds for its own tools."""

    async def add_tool_result(self, call_id: str, output: str) -> str:
        """Give a host-run (declared-only) call its result, after the result guards; returns what was recorded."""
        call = self.loop.conversation.waiting_call(call_id)
        guarded = await apply_guards(self.guards, call, ToolResult(output))
        self.loop.conversation.add_tool_result(call_id, guarded.output)
        return guarded.output

    def run_streaming(self, prompt: str, override: CallOptions | None = None) -> AsyncIterator[Event]:
        """Run ``prompt``: events as they happen, progress merged in, the usage report on ``RunFinished``."""
        return self.loop.run_streaming(prompt, override)

    def continue_streaming(self, override: CallOptions | None = None) -> AsyncIterator[Event]:
        """Continue from the history."""
        return self.loop.continue_streaming(override)

    @property
    def id(self) -> str | None:
        """The session id, or None when the session is not saved."""
        return self.writer.id if self.writer else None

    def close(self) -> None:
        """Close the session file."""
        if self.writer is not None:
            self.writer.close()


def open_session(
    config: SessionConfig,
    *,
    approver: Approver | None,
    title: str = "",
    history: tuple[Message, ...] = (),
    client: ModelClient | None = None,
    contributors: list[InstructionContributor] | None = None,
    turn_observers: tuple[TurnObserver, ...] = (),
    tracking: TrackingOptions | None = None,
    tracking_observers: tuple[TrackingObserver, ...] = (),
    resume: str | None = None,
) -> Session:
    """Compose the tools, the policy, the instructions and the model client into a session.

    The session's skills are listed after ``contributors`` (or the default ones) and loaded with ``load_skill``.
    """
    skills = session_skills(config.cwd, config.skills)
    if config.permissions is None:
        config = replace(config, permissions=load_permissions(config.cwd))
    assert config.permissions is not None
    todos = TodoStore()
    modes = ModeManager("plan" if config.mode == "plan" else "work")
    tracker = Tracker(config.model.model, options=tracking, observers=tracking_observers)
    writer = _open_writer(config, title, resume) if config.persist else None
    conversation = Conversation(history)
    if writer is not None:
        conversation.listen(writer.append_message)
    loop = AgentLoop(
        client=client or LiteLLMClient(_model_settings(config)),
        toolset=build_toolset(config, approver, todos, modes, extra_tools=skill_tools(skills)),
        environment=ToolEnvironment(
            cwd=config.cwd,
            data_dir=user_data_dir() / "outputs" / (writer.id if writer else "unsaved"),
            file_options=config.file_options,
        ),
        instructions=build_instructions(
            config.cwd,
            [*(contributors if contributors is not None else default_contributors()), *skill_contributors(skills)],
        ),
        options=LoopOptions(max_turns=config.max_turns, limits=config.limits),
        conversation=conversation,
        turn_observers=turn_observers,
        hooks=tracker,
    )
    return Session(loop, writer, todos, tracker, modes, result_guards(config.permissions.guards))


def build_toolset(
    config: SessionConfig,
    approver: Approver | None,
    todos: TodoStore,
    modes: ModeManager | None = None,
    *,
    extra_tools: Sequence[Tool] = (),
) -> Toolset:
    """The built-in tools behind the result guards, the approval gate (permission rules) and the mode filter.

    A broken permissions file raises ``ConfigError``.
    """
    permissions = config.permissions or load_permissions(config.cwd)
    modes = modes or ModeManager("plan" if config.mode == "plan" else "work")
    return guarded_toolset(ToolRegistry([*builtin_tools(todos), *extra_tools]), permissions, approver, modes)


def _model_settings(config: SessionConfig) -> ModelSettings:
    return ModelSettings(
        model=config.model.model,
        api_base=config.model.api_base,
        api_key=config.model.api_key,
        timeout_s=config.request_timeout_s,
        retry=config.retry,
    )


def _open_writer(config: SessionConfig, title: str, resume: str | None) -> SessionWriter:
    store = SessionStore(user_data_dir() / "sessions")
    redact = Redactor((config.model.api_key,))
    if resume is not None:
        return store.reopen(resume, redact=redact)
    return store.create(cwd=config.cwd, model=config.model.model, redact=redact, title=title)
