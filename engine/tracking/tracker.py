"""The tracker: a run's root scope, its request events, model turns, tool-call scopes and the report.

It plugs into the loop's lifecycle seam (``engine.run_hooks``) instead of wrapping the event stream,
so untouched events (every text delta) cost nothing extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import Token
from dataclasses import replace
from types import TracebackType
from typing import Any

from engine.events import Event, ExitReason, ProgressEvent, ProgressPhase, RunResult, ScopeInfo, Success, ToolCall
from engine.reports import RequestOutcome, ToolKind
from engine.run_hooks import CallTrace, Emit, RunTrace
from engine.tracking.scopes import Request, Scope, ToolScope, TrackingObserver, TrackingOptions, current_scope
from engine.usage import Usage

_OUTCOMES: dict[ExitReason, RequestOutcome] = {
    "completed": "completed",
    "pending_tool_calls": "completed",
    "max_turns": "failed",
    "usage_limit": "failed",
    "error": "failed",
    "cancelled": "cancelled",
}


class Tracker:
    """Tracks every run of one agent; pass it to the loop as its ``hooks``."""

    def __init__(
        self,
        model: str,
        *,
        options: TrackingOptions | None = None,
        observers: Sequence[TrackingObserver] = (),
    ) -> None:
        self.model = model
        self.options = options or TrackingOptions()
        self.observers = tuple(observers)

    def begin(self, model: str) -> RunTrace:
        """Start tracking one run, attached to the current scope (a tool's, for a nested run)."""
        request = Request(
            model=model or self.model, options=self.options, observers=self.observers, parent=current_scope.get()
        )
        return _RunTracking(request, current_scope.set(request.root))


class _RunTracking:
    """One tracked run (a ``RunTrace``)."""

    def __init__(self, request: Request, token: Token[Scope | None]) -> None:
        self.request = request
        self._token = token

    def started(self) -> Event | None:
        return self._announce("request_started")

    def model_turn(self) -> Event | None:
        return self._announce("thinking", label="Thinking...")

    def replied(self, usage: Usage, reported_model: str) -> None:
        self.request.record_turn(usage, self.request.model, reported_model)

    def call(self, call: ToolCall, kind: str, source: str | None, emit: Emit) -> CallTrace:
        return open_call(self.request.root, call, _tool_kind(call.name, kind), source, emit, in_band=False)

    def finished(self, result: RunResult) -> tuple[Event | None, RunResult]:
        outcome = _OUTCOMES[result.exit_reason]
        ended = self._announce("request_completed" if outcome == "completed" else "request_failed")
        report = self.request.finish(outcome)
        self._reset()
        return ended, replace(result, report=report)

    def abandoned(self) -> None:
        if self.request.report is None:
            self._announce("request_failed")
            self.request.finish("failed")
        self._reset()

    def _announce(self, phase: ProgressPhase, **fields: str) -> ProgressEvent:
        event = self.request.event(phase, **fields)
        self.request.announce(event)
        return event

    def _reset(self) -> None:
        try:
            current_scope.reset(self._token)
        except ValueError:
            # Closed from another context (e.g. by garbage collection): that context never saw our
            # value, so there is nothing to undo.
            pass


def _tool_kind(name: str, kind: str) -> ToolKind:
    if kind in ("mcp", "agent"):
        return kind  # type: ignore[return-value]
    return "mcp" if name.startswith("mcp__") else "tool"


def label_for(name: str, kind: ToolKind, source: str | None) -> str:
    """The label of a call: "Calling {tool} Tool", "Calling {server} MCP" or "Calling {agent} Agent"."""
    if kind == "mcp":
        server = source or (name.split("__")[1] if name.count("__") >= 2 else name)
        return f"Calling {server} MCP"
    if kind == "agent":
        return f"Calling {source or name} Agent"
    return f"Calling {name} Tool"


def open_call(
    parent: Scope, call: ToolCall, kind: ToolKind, source: str | None, emit: Emit | None, *, in_band: bool
) -> TrackedCall:
    """Open a tool call's scope below ``parent`` and announce it.

    ``in_band`` sends the invoking/completed events into the run's stream too; top-level calls do
    not need that, because their ``ToolCallStarted``/``ToolCallFinished`` events carry the scope.
    """
    tracked = TrackedCall(ToolScope(parent, call, kind, source, emit, label_for(call.name, kind, source)), in_band)
    arguments = None
    if parent.request.options.include_tool_arguments:
        arguments = {key: str(value) for key, value in call.arguments.items()}
    tracked.publish("tool_invoking", label=tracked.tool_scope.info.label, arguments=arguments)
    return tracked


class TrackedCall:
    """A tracked tool call (a ``CallTrace``): its scope is ambient while the call runs."""

    __slots__ = ("in_band", "scope", "tool_scope")

    def __init__(self, scope: ToolScope, in_band: bool) -> None:
        self.tool_scope = scope
        self.scope: ScopeInfo | None = scope.info
        self.in_band = in_band

    def __enter__(self) -> None:
        self.tool_scope.__enter__()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.tool_scope.__exit__(kind, error, trace)

    def close(self, success: Success) -> None:
        report = self.tool_scope.report(success)
        assert self.tool_scope.parent is not None
        self.tool_scope.parent.add_child(report)
        self.publish("tool_failed" if success is False else "tool_completed", duration_s=report.duration_s)

    def publish(self, phase: ProgressPhase, **fields: Any) -> None:
        """Tell whoever needs it beyond the run's own ToolCallStarted/Finished events (if anyone does)."""
        request = self.tool_scope.request
        if not (self.in_band or request.observers or request.parent is not None):
            return
        info = self.tool_scope.info
        event = ProgressEvent(
            phase=phase,
            scope_id=info.scope_id,
            parent_scope_id=info.parent_scope_id,
            depth=info.depth,
            call_id=self.tool_scope.call.id,
            tool_name=self.tool_scope.call.name,
            tool_kind=info.tool_kind,
            **fields,
        )
        if self.in_band and self.tool_scope.emit is not None:
            self.tool_scope.emit(event)
        request.forward(event)
        request.notify(event)
