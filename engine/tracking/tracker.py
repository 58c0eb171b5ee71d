"""The tracker: a run's root scope, its lifecycle events, model turns, tool-call scopes and the report.

It plugs into the loop's lifecycle seam (``engine.run_hooks``) instead of wrapping the event stream,
so untouched events (every text delta) cost nothing extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import Token
from dataclasses import replace
from types import TracebackType

from engine.events import Event, ExitReason, RunResult, ScopeInfo, ToolCall, ToolCallFinished, ToolCallStarted
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

    def begin(self, model: str, agent: str) -> RunTrace:
        """Start tracking one run, attached to the current scope (a tool's, for a nested run)."""
        request = Request(
            model=model or self.model,
            agent=agent,
            options=self.options,
            observers=self.observers,
            parent=current_scope.get(),
        )
        return _RunTracking(request, current_scope.set(request.root))


class _RunTracking:
    """One tracked run (a ``RunTrace``)."""

    def __init__(self, request: Request, token: Token[Scope | None]) -> None:
        self.request = request
        self.scope: ScopeInfo | None = request.root.info
        self._token = token

    def observe(self, event: Event) -> None:
        self.request.spread(event)

    def replied(self, usage: Usage, reported_model: str) -> None:
        self.request.record_turn(usage, self.request.model, reported_model)

    def call(self, call: ToolCall, kind: ToolKind, source: str | None, emit: Emit) -> CallTrace:
        return open_call(self.request.root, call, kind, source, emit)

    def finished(self, result: RunResult) -> RunResult:
        report = self.request.finish(_OUTCOMES[result.exit_reason])
        self._reset()
        return replace(result, report=report)

    def abandoned(self) -> None:
        if self.request.report is None:
            self.request.finish("failed")
        self._reset()

    def _reset(self) -> None:
        try:
            current_scope.reset(self._token)
        except ValueError:
            # Closed from another context (e.g. by garbage collection): that context never saw our
            # value, so there is nothing to undo.
            pass


def tool_kind(name: str, kind: ToolKind) -> ToolKind:
    """The kind of a call: the spec's, or "mcp" for an ``mcp__server__tool`` name given as a plain tool."""
    if kind != "tool":
        return kind
    return "mcp" if name.startswith("mcp__") else "tool"


def label_for(name: str, kind: ToolKind, source: str | None) -> str:
    """The label of a call: "Calling {tool} Tool", "Calling {server} MCP" or "Calling {agent} Agent"."""
    if kind == "mcp":
        server = source or (name.split("__")[1] if name.count("__") >= 2 else name)
        return f"Calling {server} MCP"
    if kind == "agent":
        return f"Calling {source or name} Agent"
    return f"Calling {name} Tool"


def open_call(parent: Scope, call: ToolCall, kind: ToolKind, source: str | None, emit: Emit | None) -> TrackedCall:
    """Open a tool call's scope below ``parent``; its events go to ``emit`` (the run's stream) and beyond."""
    kind = tool_kind(call.name, kind)
    return TrackedCall(ToolScope(parent, call, kind, source, emit, label_for(call.name, kind, source)))


class TrackedCall:
    """A tracked tool call (a ``CallTrace``): its scope is ambient while the call runs."""

    __slots__ = ("scope", "tool_scope")

    def __init__(self, scope: ToolScope) -> None:
        self.tool_scope = scope
        self.scope: ScopeInfo | None = scope.info

    def __enter__(self) -> None:
        self.tool_scope.__enter__()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.tool_scope.__exit__(kind, error, trace)

    def started(self, event: ToolCallStarted) -> None:
        self.tool_scope.publish(event)

    def finished(self, event: ToolCallFinished) -> None:
        report = self.tool_scope.report(event.outcome.success, event.outcome.waited_s)
        assert self.tool_scope.parent is not None
        self.tool_scope.parent.add_child(report)
        self.tool_scope.publish(event)
