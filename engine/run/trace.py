"""The loop's lifecycle seam: what a run tells an observer that must act *inside* the run (tracking).

The loop opens a trace at run start, shows it every lifecycle event it produces (run started, model
turn started, each tool call's started / progress / finished), reports each model reply, and closes
it at the end. The trace gives scopes to the run and its calls, carries the events to enclosing runs
and to out-of-band observers, and adds the usage report to the result. Nothing wraps the stream, so
untouched events (every text delta) cost nothing; turn observers, by contrast, only watch finished turns.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Protocol

from engine.events import Event, RunResult, ScopeInfo, ToolCall, ToolCallFinished, ToolCallStarted
from engine.reports import ToolKind
from engine.usage import Usage

Emit = Callable[[Event], None]


class CallTrace(Protocol):
    """One tool call being traced. Entered around the call (making its scope ambient), then closed."""

    scope: ScopeInfo | None

    def __enter__(self) -> None: ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None: ...

    def started(self, event: ToolCallStarted) -> None:
        """The call's ``ToolCallStarted``: into the run's stream, enclosing runs' streams and the observers."""
        ...

    def finished(self, event: ToolCallFinished) -> None:
        """The call ended: its report is recorded and its ``ToolCallFinished`` sent like ``started``."""
        ...


class RunTrace(Protocol):
    """One run being traced."""

    scope: ScopeInfo | None
    """The run's root scope (None when untracked)."""

    def observe(self, event: Event) -> None:
        """A lifecycle event the run itself yields (``RunStarted``, ``ModelTurnStarted``), for everyone else."""
        ...

    def replied(self, usage: Usage, reported_model: str, response_id: str | None = None) -> None:
        """A model call finished with this usage (and the provider's id of its response, when it gave one)."""
        ...

    def call(self, call: ToolCall, kind: ToolKind, source: str | None, emit: Emit) -> CallTrace:
        """A tool call is about to run; ``emit`` puts events in the run's stream while it runs."""
        ...

    def finished(self, result: RunResult) -> RunResult:
        """The run ended: the result to carry (e.g. with its usage report)."""
        ...

    def abandoned(self) -> None:
        """The run stopped without finishing (its consumer left, or it raised)."""
        ...


class RunHooks(Protocol):
    """Gives each run its trace."""

    def begin(self, model: str, agent: str) -> RunTrace: ...


class UntracedCall:
    """A call nobody tracks (a ``CallTrace``): its events still reach the run's own stream."""

    __slots__ = ("_emit",)
    scope: ScopeInfo | None = None

    def __init__(self, emit: Emit) -> None:
        self._emit = emit

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        return None

    def started(self, event: ToolCallStarted) -> None:
        self._emit(event)

    def finished(self, event: ToolCallFinished) -> None:
        self._emit(event)


class _UntracedRun:
    scope: ScopeInfo | None = None

    def observe(self, event: Event) -> None:
        return None

    def replied(self, usage: Usage, reported_model: str, response_id: str | None = None) -> None:
        return None

    def call(self, call: ToolCall, kind: ToolKind, source: str | None, emit: Emit) -> CallTrace:
        return UntracedCall(emit)

    def finished(self, result: RunResult) -> RunResult:
        return result

    def abandoned(self) -> None:
        return None


class NoHooks:
    """Traces nothing (the default)."""

    _trace = _UntracedRun()

    def begin(self, model: str, agent: str) -> RunTrace:
        return self._trace
