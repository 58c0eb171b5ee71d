"""The loop's lifecycle seam: what a run tells an observer that must act *inside* the run (tracking).

The loop calls these at run start, before each model turn, after each reply, around each tool call
and at the end. An implementation may hand back events, which the loop puts in its stream in place,
so nothing has to wrap the stream (wrapping costs a generator hop on every text delta). Turn
observers, by contrast, only watch finished turns.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Protocol

from engine.events import Event, RunResult, ScopeInfo, Success, ToolCall
from engine.usage import Usage

Emit = Callable[[Event], None]


class CallTrace(Protocol):
    """One tool call being traced. Entered around the call (making its scope ambient), then closed."""

    scope: ScopeInfo | None

    def __enter__(self) -> None: ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None: ...

    def close(self, success: Success) -> None:
        """The call ended (``success`` False when it failed or raised)."""
        ...


class RunTrace(Protocol):
    """One run being traced."""

    def started(self) -> Event | None:
        """The run began; an event to put right after ``RunStarted``."""
        ...

    def model_turn(self) -> Event | None:
        """A model call is about to be made."""
        ...

    def replied(self, usage: Usage, reported_model: str) -> None:
        """A model call finished with this usage."""
        ...

    def call(self, call: ToolCall, kind: str, source: str | None, emit: Emit) -> CallTrace:
        """A tool call is about to run; ``emit`` puts events in the run's stream while it runs."""
        ...

    def finished(self, result: RunResult) -> tuple[Event | None, RunResult]:
        """The run ended: an event to put before ``RunFinished``, and the result to carry (e.g. with a report)."""
        ...

    def abandoned(self) -> None:
        """The run stopped without finishing (its consumer left, or it raised)."""
        ...


class RunHooks(Protocol):
    """Gives each run its trace."""

    def begin(self, model: str) -> RunTrace: ...


class _NoCallTrace:
    scope: ScopeInfo | None = None

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        return None

    def close(self, success: Success) -> None:
        return None


_NO_CALL_TRACE = _NoCallTrace()


class _NoRunTrace:
    def started(self) -> Event | None:
        return None

    def model_turn(self) -> Event | None:
        return None

    def replied(self, usage: Usage, reported_model: str) -> None:
        return None

    def call(self, call: ToolCall, kind: str, source: str | None, emit: Emit) -> CallTrace:
        return _NO_CALL_TRACE

    def finished(self, result: RunResult) -> tuple[Event | None, RunResult]:
        return None, result

    def abandoned(self) -> None:
        return None


class NoHooks:
    """Traces nothing (the default)."""

    _trace = _NoRunTrace()

    def begin(self, model: str) -> RunTrace:
        return self._trace
