"""The protocol between the engine and its hosts: one closed union of typed events.

Every event is a small frozen record (a msgspec Struct) with a literal ``kind`` and the id of the agent that produced
it (``"root"``, or a named sub-agent). Hosts render or serialise events with one ``match`` ending in
``assert_never``; the engine never prints.

A tool call has one lifecycle at every depth: ``ToolCallStarted``, any number of ``ToolProgress``,
then ``ToolCallFinished``, each carrying the call's place in the scope tree (``ScopeInfo``). Calls
made from inside another tool and calls of a nested agent run travel into every enclosing stream as
these same events, deeper in the tree. Each model call of a run begins with ``ModelTurnStarted``.

Only the standard library and msgspec (the records) are imported here, plus three engine modules that
import nothing more (``engine.usage``, ``engine.reports``, ``engine.errors``); a test holds this true, so
any host can depend on the protocol cheaply.
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct, field

from engine.errors import ErrorCategory
from engine.reports import ToolKind, UsageReport
from engine.usage import Usage as Usage

ROOT_AGENT = "root"
"""The agent id of the top-level agent of a session; sub-agents carry their own names."""

WorkingMode = Literal["plan", "work"]
"""What the agent does between decisions: plan (read-only tools) or work (every tool, each judged)."""
Mode = Literal["plan", "work", "hitl"]
"""The agent's mode; ``hitl`` while a person is deciding."""
CompactionReason = Literal["threshold", "overflow", "manual"]
"""Why the conversation was compacted: the window filled up, the provider refused it, or the user asked."""

Success = bool | None
"""Outcome of a tool call: True, False, or None when the outcome is unknown."""


class ToolCall(Struct, frozen=True, kw_only=True):
    """A tool call as the model asked for it."""

    id: str
    name: str
    arguments: dict[str, Any]
    """Parsed arguments; empty when the model sent none."""
    raw_arguments: str = ""
    """The argument text exactly as the model sent it."""
    parse_error: str | None = None
    """Why ``raw_arguments`` could not be parsed, if it could not."""


class ToolOutcome(Struct, frozen=True, kw_only=True):
    """A finished tool call: the call, what came back, and whether it worked."""

    call: ToolCall
    output: str
    success: Success
    duration_s: float = 0.0
    """How long the call ran, without ``waited_s``."""
    waited_s: float = 0.0
    """How long the call waited for a person's decision (its approval, or another call's question)."""
    images: tuple[dict[str, Any], ...] = ()
    """Images the call returned (OpenAI ``image_url`` parts), sent to the model after the round's results."""


class TurnRecord(Struct, frozen=True, kw_only=True):
    """One model turn: the model's reply and the tool calls it made, with their outcomes."""

    index: int
    """0-based position of this model turn within the run."""
    text: str
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    outcomes: tuple[ToolOutcome, ...] = ()
    pending_calls: tuple[ToolCall, ...] = ()
    """Calls to declared-only tools, left for the host to run."""
    finish_reason: str | None = None
    model: str = ""
    usage: Usage = field(default_factory=Usage)
    response_id: str | None = None
    """The provider's id of the model's response, when it gave one."""


ExitReason = Literal[
    "completed",
    "max_turns",
    "usage_limit",
    "pending_tool_calls",
    "cancelled",
    "error",
]


class RunResult(Struct, frozen=True, kw_only=True):
    """What a run produced: the final text, every turn, the usage, and why it stopped."""

    text: str
    """The text of the run's last model call: its reply, or what arrived of it before it broke off."""
    exit_reason: ExitReason
    turns: tuple[TurnRecord, ...] = ()
    cut_text: str = ""
    """What arrived of a last reply that broke off (the text output showed it); it is in no turn."""
    usage: Usage = field(default_factory=Usage)
    pending_calls: tuple[ToolCall, ...] = ()
    addenda: tuple[str, ...] = ()
    """Text that turn observers added for the caller; never part of the history."""
    error: str | None = None
    fix: str | None = None
    """What the person can change so that a run that stopped goes through (the key, the setting)."""
    report: UsageReport | None = None
    """The usage report, when the run was tracked."""

    @property
    def content(self) -> str:
        """``text`` followed by the turn observers' ``addenda``, a blank line apart: the buffered answer with what
        the observers added, for a caller that shows one text. ``text`` stays the model's words alone (an answer
        checked against ``--output-schema`` must parse as the model wrote it)."""
        return "\n\n".join(part for part in (self.text, *self.addenda) if part)

    @property
    def tool_outcomes(self) -> tuple[ToolOutcome, ...]:
        """Every tool outcome of the run, in order."""
        return tuple(o for t in self.turns for o in t.outcomes)


# --- events -----------------------------------------------------------------------------


class _AgentEvent(Struct, frozen=True, kw_only=True):
    """Fields every event has."""

    agent: str = ROOT_AGENT
    """The id of the agent that produced the event: ``root`` or a named sub-agent."""


class ScopeInfo(Struct, frozen=True, kw_only=True):
    """Where something sits in a tracked request's scope tree: a run's root, or a tool call below it.

    One root per run (depth 0, or below the tool that started a nested run), a child per tool call,
    nested calls and nested runs further down; ``parent_scope_id`` links them.
    """

    scope_id: str
    parent_scope_id: str | None
    depth: int
    label: str = ""
    """"Calling read_file Tool", "Calling github MCP", "Calling reviewer Agent" (empty for a run's root)."""
    tool_kind: ToolKind | None = None
    """The kind of tool of a call's scope; None for a run's root."""
    source: str | None = None
    """The MCP server or agent behind the call, when there is one."""


class RunStarted(_AgentEvent, frozen=True, kw_only=True):
    """A run began (a new prompt or a continuation)."""

    kind: Literal["run_started"] = "run_started"
    model: str
    continuation: bool = False
    scope: ScopeInfo | None = None
    """The run's root scope, when the run is tracked."""


class ModelTurnStarted(_AgentEvent, frozen=True, kw_only=True):
    """A model call is about to be made (the "thinking" point of a run)."""

    kind: Literal["model_turn_started"] = "model_turn_started"
    index: int
    """0-based position of this model turn within the run."""
    model: str
    scope: ScopeInfo | None = None
    """The run's root scope, when the run is tracked (for a nested run: below the tool that runs it)."""


class ModelResponding(_AgentEvent, frozen=True, kw_only=True):
    """The provider accepted the model call: what follows is the model working on its answer."""

    kind: Literal["model_responding"] = "model_responding"


class TextDelta(_AgentEvent, frozen=True, kw_only=True):
    """A piece of the model's answer text."""

    kind: Literal["text_delta"] = "text_delta"
    text: str


class ReasoningDelta(_AgentEvent, frozen=True, kw_only=True):
    """A piece of the model's reasoning ("thinking") text."""

    kind: Literal["reasoning_delta"] = "reasoning_delta"
    text: str


class ToolCallStarted(_AgentEvent, frozen=True, kw_only=True):
    """A tool call is about to run, at any depth (a top-level call, a call inside a tool, a sub-agent's call)."""

    kind: Literal["tool_call_started"] = "tool_call_started"
    call: ToolCall
    read_only: bool = False
    scope: ScopeInfo | None = None
    """The call's place in the scope tree, when the run is tracked (depth 1 for the run's own calls)."""
    host_run: bool = False
    """A call of a declared-only tool: the host runs it, so no ``ToolCallFinished`` follows in this run (the
    call is in the run's ``pending_calls``)."""


class ToolProgress(_AgentEvent, frozen=True, kw_only=True):
    """A running tool reported what it is doing, and how far along it is when it knows."""

    kind: Literal["tool_progress"] = "tool_progress"
    call_id: str
    tool_name: str
    status: str = ""
    progress: float | None = None
    total: float | None = None
    scope: ScopeInfo | None = None
    """The scope of the call that reported it."""


class ToolCallFinished(_AgentEvent, frozen=True, kw_only=True):
    """A tool call finished; ``outcome.success`` is True, False or None (unknown)."""

    kind: Literal["tool_call_finished"] = "tool_call_finished"
    outcome: ToolOutcome
    scope: ScopeInfo | None = None
    """The call's place in the scope tree, when the run is tracked."""


class Retrying(_AgentEvent, frozen=True, kw_only=True):
    """A model call failed in a way worth retrying; the engine waits and tries again, or resumes a cut reply."""

    kind: Literal["retrying"] = "retrying"
    category: ErrorCategory
    message: str
    attempt: int
    delay_s: float
    resumed: bool = False
    """The reply was cut after output: a new turn continues it from where its text stopped (no wait)."""


class ContextCompacted(_AgentEvent, frozen=True, kw_only=True):
    """The conversation was compacted: older messages are represented by a summary from now on."""

    kind: Literal["context_compacted"] = "context_compacted"
    reason: CompactionReason
    summarised_messages: int
    """How many messages of the history the summary stands for."""
    kept_messages: int
    """How many recent messages are still sent whole."""
    usage: Usage | None = None
    """What the model call that wrote the summary cost (counted in the run's usage), when there was one."""


class TurnCompleted(_AgentEvent, frozen=True, kw_only=True):
    """A model turn and its tool calls are done."""

    kind: Literal["turn_completed"] = "turn_completed"
    turn: TurnRecord
    addendum: str | None = None
    """What turn observers added for the caller; never written into the history."""


class ModeChanged(_AgentEvent, frozen=True, kw_only=True):
    """The agent's mode changed (plan, work, hitl)."""

    kind: Literal["mode_changed"] = "mode_changed"
    previous: Mode
    current: Mode
    reason: str = ""


class ApprovalRequested(_AgentEvent, frozen=True, kw_only=True):
    """A tool call needs a human decision before it may run."""

    kind: Literal["approval_requested"] = "approval_requested"
    call: ToolCall
    summary: str
    """What will happen: the full command, or the path (and a diff) for an edit."""
    reason: str = ""
    """Why it needs a decision (the rule that asks, or what could not be judged)."""
    request_id: str = ""
    """The question's own id, unique in the process: what an answer over stdin names (stream-json input)."""
    warning: str = ""
    """What the person should know before allowing it (e.g. "this change cannot be undone: ..."); empty: nothing."""


class ApprovalResolved(_AgentEvent, frozen=True, kw_only=True):
    """A decision about a tool call was taken (by a person, a flag, or for lack of anyone to ask)."""

    kind: Literal["approval_resolved"] = "approval_resolved"
    call_id: str
    allowed: bool
    reason: str = ""
    request_id: str = ""
    """The id of the question this answers (empty when nobody was asked)."""


class ErrorEvent(_AgentEvent, frozen=True, kw_only=True):
    """Something went wrong; ``category`` says what kind of thing."""

    kind: Literal["error"] = "error"
    category: ErrorCategory
    message: str
    fix: str = ""
    """What the person can change (which key, which setting); empty when there is nothing to say."""


class RunFinished(_AgentEvent, frozen=True, kw_only=True):
    """The last event of every run; carries the result with its turn records."""

    kind: Literal["run_finished"] = "run_finished"
    result: RunResult


Event = (
    RunStarted
    | ModelTurnStarted
    | ModelResponding
    | TextDelta
    | ReasoningDelta
    | ToolCallStarted
    | ToolProgress
    | ToolCallFinished
    | Retrying
    | ContextCompacted
    | TurnCompleted
    | ModeChanged
    | ApprovalRequested
    | ApprovalResolved
    | ErrorEvent
    | RunFinished
)
"""The closed union of everything the engine tells its host."""

ToolLifecycleEvent = ToolCallStarted | ToolProgress | ToolCallFinished
"""A tool call's lifecycle, the same at every depth."""
