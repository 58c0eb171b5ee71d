"""The protocol between the engine and its hosts: one closed union of typed events.

Every event is a small frozen dataclass with a literal ``kind``. Hosts render or serialise
events by dispatching on ``kind`` (or with ``match``); the engine never prints.

This module imports only the standard library so any host can depend on it cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine.reports import UsageReport
from engine.usage import Usage as Usage

Success = bool | None
"""Outcome of a tool call: True, False, or None when the outcome is unknown."""


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """A tool call as the model asked for it."""

    id: str
    name: str
    arguments: dict[str, Any]
    """Parsed arguments; empty when the model sent none."""
    raw_arguments: str = ""
    """The argument text exactly as the model sent it."""
    parse_error: str | None = None
    """Why ``raw_arguments`` could not be parsed, if it could not."""


@dataclass(frozen=True, kw_only=True)
class ToolOutcome:
    """A finished tool call: the call, what came back, and whether it worked."""

    call: ToolCall
    output: str
    success: Success
    duration_s: float = 0.0


@dataclass(frozen=True, kw_only=True)
class TurnRecord:
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


ExitReason = Literal[
    "completed",
    "max_turns",
    "usage_limit",
    "pending_tool_calls",
    "cancelled",
    "error",
]


@dataclass(frozen=True, kw_only=True)
class RunResult:
    """What a run produced: the final text, every turn, the usage, and why it stopped."""

    text: str
    exit_reason: ExitReason
    turns: tuple[TurnRecord, ...] = ()
    usage: Usage = field(default_factory=Usage)
    pending_calls: tuple[ToolCall, ...] = ()
    addenda: tuple[str, ...] = ()
    """Text that turn observers added for the caller; never part of the history."""
    error: str | None = None
    report: UsageReport | None = None
    """The usage report, when the run was tracked."""

    @property
    def tool_outcomes(self) -> tuple[ToolOutcome, ...]:
        """Every tool outcome of the run, in order."""
        return tuple(o for t in self.turns for o in t.outcomes)


# --- events -----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RunStarted:
    """A run began (a new prompt or a continuation)."""

    kind: Literal["run_started"] = "run_started"
    model: str
    continuation: bool = False


@dataclass(frozen=True, kw_only=True)
class TextDelta:
    """A piece of the model's answer text."""

    kind: Literal["text_delta"] = "text_delta"
    text: str


@dataclass(frozen=True, kw_only=True)
class ReasoningDelta:
    """A piece of the model's reasoning ("thinking") text."""

    kind: Literal["reasoning_delta"] = "reasoning_delta"
    text: str


@dataclass(frozen=True, kw_only=True)
class ScopeInfo:
    """Where a tracked tool call sits in the scope tree (see ``ProgressEvent``)."""

    scope_id: str
    parent_scope_id: str | None
    depth: int
    label: str = ""
    """"Calling read_file Tool", "Calling github MCP", "Calling reviewer Agent"."""
    tool_kind: str = "tool"
    source: str | None = None


@dataclass(frozen=True, kw_only=True)
class ToolCallStarted:
    """A tool call is about to run: in a tracked run this is the call's "tool invoking" event."""

    kind: Literal["tool_call_started"] = "tool_call_started"
    call: ToolCall
    read_only: bool = False
    scope: ScopeInfo | None = None
    """The call's place in the scope tree, when the run is tracked."""


ProgressPhase = Literal[
    "request_started",
    "thinking",
    "tool_invoking",
    "tool_progress",
    "tool_completed",
    "tool_failed",
    "request_completed",
    "request_failed",
]


@dataclass(frozen=True, kw_only=True)
class ProgressEvent:
    """A tracking event. It never carries prompt text, tool arguments (unless opted in) or tool results.

    ``scope_id``, ``parent_scope_id`` and ``depth`` let a consumer rebuild the scope tree: one root per
    request, a child per tool call, nested calls and nested runs below.
    """

    kind: Literal["progress"] = "progress"
    phase: ProgressPhase
    scope_id: str
    parent_scope_id: str | None
    depth: int
    label: str = ""
    """Synthetic, for display: "Thinking...", "Calling read_file Tool", "Calling github MCP"."""
    call_id: str | None = None
    tool_name: str | None = None
    tool_kind: str | None = None
    """"tool", "mcp" or "agent"."""
    status: str | None = None
    """The status text a tool reported about itself (``tool_progress`` only)."""
    progress: float | None = None
    total: float | None = None
    duration_s: float | None = None
    arguments: dict[str, str] | None = None
    """Stringified argument values, only with ``include_tool_arguments``."""


@dataclass(frozen=True, kw_only=True)
class ToolCallFinished:
    """A tool call finished; ``outcome.success`` is True, False or None (unknown).

    In a tracked run this is the call's "tool completed" (or, when it failed, "tool failed") event.
    """

    kind: Literal["tool_call_finished"] = "tool_call_finished"
    outcome: ToolOutcome
    scope: ScopeInfo | None = None
    """The call's place in the scope tree, when the run is tracked."""


@dataclass(frozen=True, kw_only=True)
class Retrying:
    """A model call failed in a way worth retrying; the engine waits and tries again."""

    kind: Literal["retrying"] = "retrying"
    category: str
    message: str
    attempt: int
    delay_s: float


@dataclass(frozen=True, kw_only=True)
class TurnCompleted:
    """A model turn and its tool calls are done."""

    kind: Literal["turn_completed"] = "turn_completed"
    turn: TurnRecord
    addendum: str | None = None
    """What turn observers added for the caller; never written into the history."""


@dataclass(frozen=True, kw_only=True)
class ModeChanged:
    """The agent's mode changed (plan, work, hitl)."""

    kind: Literal["mode_changed"] = "mode_changed"
    previous: str
    current: str
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class ApprovalRequested:
    """A tool call needs a human decision before it may run."""

    kind: Literal["approval_requested"] = "approval_requested"
    call: ToolCall
    summary: str
    """What will happen: the full command, or the path (and a diff) for an edit."""


@dataclass(frozen=True, kw_only=True)
class ApprovalResolved:
    """A decision about a tool call was taken (by a person, a flag, or for lack of anyone to ask)."""

    kind: Literal["approval_resolved"] = "approval_resolved"
    call_id: str
    allowed: bool
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class ErrorEvent:
    """Something went wrong; ``category`` says what kind of thing."""

    kind: Literal["error"] = "error"
    category: str
    message: str


@dataclass(frozen=True, kw_only=True)
class RunFinished:
    """The last event of every run; carries the result with its turn records."""

    kind: Literal["run_finished"] = "run_finished"
    result: RunResult


Event = (
    RunStarted
    | TextDelta
    | ReasoningDelta
    | ToolCallStarted
    | ProgressEvent
    | ToolCallFinished
    | Retrying
    | TurnCompleted
    | ModeChanged
    | ApprovalRequested
    | ApprovalResolved
    | ErrorEvent
    | RunFinished
)
"""The closed union of everything the engine tells its host."""
