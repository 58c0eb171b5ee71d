"""The scope tree of a tracked request: a root per request, a child per tool call, nested below.

The current scope is ambient (a context variable), so code inside a tool reaches its scope with no
parameter plumbing, and a tracked run started inside a tool attaches itself to that tool's scope.
Scopes are updated from the event loop and from worker threads alike, hence the locks.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar, Token
from types import TracebackType
from typing import Protocol

from msgspec import Struct
from msgspec.structs import replace

from engine.events import (
    Event,
    ModelTurnStarted,
    ScopeInfo,
    ToolCall,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutcome,
    ToolProgress,
)
from engine.reports import RequestOutcome, ToolCallReport, ToolKind, UsageReport, provider_of
from engine.usage import NO_USAGE, Usage

_ids = map("s{}".format, itertools.count(1))
"""Scope ids: s1, s2, ..."""

FORWARDED = (ModelTurnStarted, ToolCallStarted, ToolProgress, ToolCallFinished)
"""What a nested run shows in the streams of the runs around it: its model turns and its tool calls."""


class TrackingObserver(Protocol):
    """Receives tracking out of band. It may be called from several tasks or threads at once.

    ``on_event`` gets every lifecycle event of the request and of the runs nested in it (run started,
    model turn started, tool call started / progress / finished) without prompt text, tool results or,
    unless ``include_tool_arguments`` is set, tool arguments; ``on_report`` gets the usage report.
    """

    def on_event(self, event: Event) -> None: ...

    def on_report(self, report: UsageReport) -> None: ...


class TrackingOptions(Struct, frozen=True, kw_only=True):
    """How a request is tracked."""

    include_tool_arguments: bool = False
    """Let observers see tool-call arguments (off: the calls they see have none)."""
    completion_events: bool = True
    """Tell observers each tool call's end (its ``ToolCallFinished``, without the result); off: they hear calls
    start and progress only. The run's own stream (and an enclosing run's) always has every event."""
    report: bool = True
    """Hand the usage report to observers' ``on_report`` and put it on ``RunFinished.result.report``; off: neither
    (a nested run still rolls its usage into the tool that ran it)."""


Emit = Callable[[Event], None]


class Scope:
    """A node of the tree: a request's root, or one tool call."""

    __slots__ = ("children", "depth", "emit", "id", "info", "parent", "request", "usage")

    def __init__(self, request: Request, parent: Scope | None, emit: Emit | None) -> None:
        self.id = next(_ids)
        self.request = request
        self.parent = parent
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.emit = emit
        self.usage: Usage | None = None
        self.children: list[ToolCallReport] | None = None
        self.info = ScopeInfo(scope_id=self.id, parent_scope_id=self.parent_id, depth=self.depth)

    @property
    def parent_id(self) -> str | None:
        """The parent scope's id (None for the outermost request)."""
        return self.parent.id if self.parent is not None else None

    def add_usage(self, usage: Usage) -> None:
        """Count usage against this scope (reported by the tool, or a nested run's total)."""
        with self.request.lock:
            self.usage = usage if self.usage is None else self.usage + usage

    def add_child(self, report: ToolCallReport) -> None:
        """Attach a finished tool call below this scope."""
        children = self.children
        if children is not None:
            children.append(report)  # one append is atomic; the lock guards making the list
            return
        with self.request.lock:
            if self.children is None:
                self.children = []
            self.children.append(report)

    def publish(self, event: Event) -> None:
        """Send an event in band (this run's stream and every enclosing run's) and to the observers."""
        if self.emit is not None:
            self.emit(event)
        if self.request.watched:
            self.request.spread(event)


class ToolScope(Scope):
    """The scope of one tool call, and its ``CallTrace``: entered around the call so that it is ambient.

    Built for every tracked call, so it does only what the run's own stream needs (its ``ScopeInfo``,
    its report); copies for observers are made only when someone observes.
    """

    __slots__ = ("_token", "call", "kind", "scope", "shape", "source")

    def __init__(self, parent: Scope, call: ToolCall, kind: ToolKind, source: str | None, emit: Emit | None) -> None:
        # Scope.__init__ is not called: this sets every slot itself, building the ScopeInfo once.
        self.id = scope_id = next(_ids)
        self.request = parent.request
        self.parent = parent
        self.depth = depth = parent.depth + 1
        self.emit = emit
        self.usage = None
        self.children = None
        self.call = call
        self.source = source
        self._token: Token[Scope | None] | None = None
        self.shape = shape = _shape_of(call.name, kind, source)
        self.kind = shape.kind
        self.info = info = ScopeInfo(
            scope_id=scope_id,
            parent_scope_id=parent.id,
            depth=depth,
            label=shape.label,
            tool_kind=shape.kind,
            source=source,
        )
        self.scope: ScopeInfo | None = info

    def __enter__(self) -> None:
        self._token = current_scope.set(self)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._token is not None:
            current_scope.reset(self._token)

    def started(self, event: ToolCallStarted) -> None:
        """The call's ``ToolCallStarted``: into the run's stream, enclosing runs' streams and the observers."""
        if self.emit is not None:  # publish(), inlined: this runs for every call
            self.emit(event)
        if self.request.watched:
            self.request.spread(event)

    def finished(self, event: ToolCallFinished) -> None:
        """The call ended: its report goes below the parent scope, its event wherever ``started``'s went."""
        assert self.parent is not None
        self.parent.add_child(self.report(event.outcome))
        if self.emit is not None:
            self.emit(event)
        if self.request.watched:
            self.request.spread(event)

    def report(self, outcome: ToolOutcome) -> ToolCallReport:
        """The finished call: its own usage plus its children's, its run time and its time waiting for a person."""
        usage: Usage = NO_USAGE
        children: tuple[ToolCallReport, ...] = ()
        if self.usage is not None or self.children:  # most calls report nothing: no lock, no sums
            with self.request.lock:
                usage = self.usage or NO_USAGE
                children = tuple(self.children) if self.children else ()
            for child in children:
                usage = usage + child.usage
        shape = self.shape
        return ToolCallReport(
            call_id=self.call.id,
            tool_name=shape.name,
            kind=shape.kind,
            source=shape.source,
            usage=usage,
            children=children,
            duration_s=outcome.duration_s,
            succeeded=outcome.success,
            waited_s=outcome.waited_s,
        )


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


class _ToolShape:
    """What every call of one tool shares: its name, kind, label and source (the label is built once per tool)."""

    __slots__ = ("kind", "label", "name", "source")

    def __init__(self, name: str, kind: ToolKind, source: str | None) -> None:
        self.name = name
        self.kind = kind = tool_kind(name, kind)
        self.label = label_for(name, kind, source)
        self.source = source


_SHAPES: dict[tuple[str, ToolKind, str | None], _ToolShape] = {}
MAX_SHAPES = 4_096


def _shape_of(name: str, kind: ToolKind, source: str | None) -> _ToolShape:
    """The shape of a call, remembered: a run calls the same few tools over and over."""
    key = (name, kind, source)
    shape = _SHAPES.get(key)
    if shape is None:
        if len(_SHAPES) >= MAX_SHAPES:
            _SHAPES.clear()
        shape = _SHAPES[key] = _ToolShape(name, kind, source)
    return shape


class Request:
    """One tracked request: its root scope, its model turns, and the report it ends with."""

    def __init__(
        self,
        *,
        model: str,
        agent: str,
        options: TrackingOptions,
        observers: tuple[TrackingObserver, ...],
        parent: Scope | None,
    ) -> None:
        self.model = model
        self.agent = agent
        self.options = options
        self.observers = observers
        self.parent = parent
        self.root = Scope(self, parent, None)  # the run's own stream gets root events from the loop
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.turns: list[Usage] = []
        self.response_ids: list[str | None] = []
        self.by_model: dict[str, Usage] = {}
        self.report: UsageReport | None = None
        self.reported_model = ""
        self.watched = bool(observers) or parent is not None
        """Whether anyone beyond the run's own stream hears its events (observers or an enclosing run)."""

    def spread(self, event: Event) -> None:
        """Tell enclosing runs (their streams) and the observers about one of this request's events."""
        if not self.watched:
            return
        if self.parent is not None and isinstance(event, FORWARDED):
            self.forward(event)
        if self.options.completion_events or not isinstance(event, ToolCallFinished):
            self.notify(private_parts_removed(event, self.options.include_tool_arguments))

    def notify(self, event: Event) -> None:
        """Tell the observers (and a parent request's observers) about an event; observer errors are ignored."""
        for observer in self.observers:
            try:
                observer.on_event(event)
            except Exception:  # an observer must never break the run it watches
                continue
        if self.parent is not None:
            self.parent.request.notify(event)

    def forward(self, event: Event) -> None:
        """Put a nested run's event into the stream of every enclosing run, once each."""
        scope = self.parent
        if scope is None:
            return
        if scope.emit is not None:
            scope.emit(event)
        scope.request.forward(event)

    def record_turn(self, usage: Usage, model: str, reported_model: str = "", response_id: str | None = None) -> None:
        """Count one model turn's usage against ``model`` (the model string hive was configured with)."""
        with self.lock:
            self.turns.append(usage)
            self.response_ids.append(response_id)
            self.by_model[model] = self.by_model.get(model, Usage()) + usage
            if reported_model and not self.reported_model:
                self.reported_model = reported_model

    def finish(self, outcome: RequestOutcome) -> UsageReport:
        """Build the report once, hand it to the observers and roll it into the parent scope."""
        if self.report is not None:
            return self.report
        with self.lock:
            turns = tuple(self.turns)
            response_ids = tuple(self.response_ids)
            by_model = dict(self.by_model)
        report = UsageReport(
            model=self.model,
            reported_model=self.reported_model or None,
            provider=provider_of(self.model),
            assistant=sum(turns, Usage()),
            turns=turns,
            response_ids=response_ids,
            tool_calls=tuple(self.root.children or ()),
            by_model=tuple(by_model.items()),
            duration_s=time.monotonic() - self.started,
            outcome=outcome,
        )
        self.report = report
        for observer in self.observers if self.options.report else ():
            try:
                observer.on_report(report)
            except Exception:  # an observer must never break the run it watches
                continue
        if self.parent is not None:
            self.parent.add_usage(report.total)
            self.parent.request.merge_models(by_model)
        return report

    def merge_models(self, by_model: dict[str, Usage]) -> None:
        """Add a nested run's per-model usage to this request's."""
        with self.lock:
            for model, usage in by_model.items():
                self.by_model[model] = self.by_model.get(model, Usage()) + usage


def private_parts_removed(event: Event, keep_arguments: bool) -> Event:
    """``event`` as observers may see it: no tool results, and no arguments unless they were opted in."""
    if isinstance(event, ToolCallStarted):
        return replace(event, call=_public_call(event.call, keep_arguments))
    if isinstance(event, ToolCallFinished):
        outcome = replace(event.outcome, call=_public_call(event.outcome.call, keep_arguments), output="")
        return replace(event, outcome=outcome)
    return event


def _public_call(call: ToolCall, keep_arguments: bool) -> ToolCall:
    if keep_arguments:
        return replace(call, raw_arguments="")
    return ToolCall(id=call.id, name=call.name, arguments={})


current_scope: ContextVar[Scope | None] = ContextVar("hive_tracking_scope", default=None)
"""The innermost tracked scope of the running code (None outside tracked runs)."""
