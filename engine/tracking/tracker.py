"""The tracker: a run's root scope, its lifecycle events, model turns, tool-call scopes and the report.

It plugs into the loop's lifecycle seam (``engine.run.trace``) instead of wrapping the event stream,
so untouched events (every text delta) cost nothing extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import Token

from msgspec.structs import replace

from engine.events import Event, ExitReason, RunResult, ScopeInfo, ToolCall
from engine.reports import RequestOutcome, ToolKind
from engine.run.trace import CallTrace, Emit, RunTrace
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

    def replied(self, usage: Usage, reported_model: str, response_id: str | None = None) -> None:
        self.request.record_turn(usage, self.request.model, reported_model, response_id)

    def call(self, call: ToolCall, kind: ToolKind, source: str | None, emit: Emit) -> CallTrace:
        return ToolScope(self.request.root, call, kind, source, emit)

    def finished(self, result: RunResult) -> RunResult:
        report = self.request.finish(_OUTCOMES[result.exit_reason])
        self._reset()
        return replace(result, report=report) if self.request.options.report else result

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


def open_call(parent: Scope, call: ToolCall, kind: ToolKind, source: str | None, emit: Emit | None) -> ToolScope:
    """Open a tool call's scope below ``parent``; its events go to ``emit`` (the run's stream) and beyond."""
    return ToolScope(parent, call, kind, source, emit)
