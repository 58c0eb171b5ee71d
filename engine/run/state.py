"""What one run of the agent loop gathers: its turns and usage, the tool round in flight, a call's output."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct, field

from engine.events import (
    Event,
    ExitReason,
    ModelResponding,
    ReasoningDelta,
    Retrying,
    RunResult,
    TextDelta,
    ToolCall,
    ToolOutcome,
    TurnRecord,
    Usage,
)
from engine.model.types import ModelReply, ModelRequest, StreamOpened, StreamReasoning, StreamRetry, StreamText


class RoundInProgress(Struct, kw_only=True):
    """The tool round running now, so that a cancellation can keep what its calls produced."""

    index: int
    reply: ModelReply
    host_run: frozenset[str]
    """Names of the declared-only tools: their calls are left for the host."""
    outcomes: dict[str, ToolOutcome] = field(default_factory=dict)


class Received(Struct, kw_only=True):
    """What one model call streamed before it ended or broke off."""

    text: str = ""
    reasoning: str = ""
    any: bool = False
    """Some output arrived (text, reasoning or part of a tool call); retries announced do not count."""
    opened: bool = False
    """The provider took the request (it is billed even if nothing arrives before a cancellation)."""

    def add(self, item: StreamOpened | StreamText | StreamReasoning | StreamRetry) -> None:
        if isinstance(item, StreamOpened):
            self.opened = True
        elif isinstance(item, StreamText):
            self.text += item.text
        elif isinstance(item, StreamReasoning):
            self.reasoning += item.text
        self.any = self.any or not isinstance(item, StreamRetry | StreamOpened)


class CallInProgress(Struct, kw_only=True):
    """The model call streaming now, so that a cancellation can keep and count what it received."""

    request: ModelRequest
    received: Received


class RunState:
    """What one run has gathered so far."""

    def __init__(self) -> None:
        self.resumes = 0
        """Cut replies this run resumed."""
        self.turns: list[TurnRecord] = []
        self.usage = Usage()
        self.addenda: list[str] = []
        self.ending: RunResult | None = None
        """Set when the run has decided to stop, with the result it stops with."""
        self.round: RoundInProgress | None = None
        self.call: CallInProgress | None = None
        self.last_text = ""
        """The text of the latest model call: its reply's, or what arrived before it broke off."""
        self.cut_text = ""
        """What arrived of the latest model call when it broke off ("" once a reply came whole)."""

    def calling(self) -> None:
        """A model call starts: nothing of it has arrived yet."""
        self.last_text = self.cut_text = ""

    def replied(self, text: str) -> None:
        """A model call's reply came whole."""
        self.last_text, self.cut_text = text, ""

    def broke_off(self, text: str) -> None:
        """A model call broke off after ``text`` arrived (resumed pieces before it included)."""
        self.last_text = self.cut_text = text

    def result(
        self, reason: ExitReason, *, error: str | None = None, fix: str | None = None, pending: Sequence[ToolCall] = ()
    ) -> RunResult:
        return RunResult(
            text=self.last_text,
            exit_reason=reason,
            turns=tuple(self.turns),
            cut_text=self.cut_text,
            usage=self.usage,
            pending_calls=tuple(pending),
            addenda=tuple(self.addenda),
            error=error,
            fix=fix,
        )


def stream_event(item: StreamOpened | StreamText | StreamReasoning | StreamRetry, agent: str) -> Event:
    """The host event for a stream item of ``agent``'s model call."""
    if isinstance(item, StreamOpened):
        return ModelResponding(agent=agent)
    if isinstance(item, StreamText):
        return TextDelta(text=item.text, agent=agent)
    if isinstance(item, StreamReasoning):
        return ReasoningDelta(text=item.text, agent=agent)
    return Retrying(
        category=item.category, message=item.message, attempt=item.attempt, delay_s=item.delay_s, agent=agent
    )


class Account:
    """What an agent's runs cost: the session total, and the run in progress (whose limits count it too)."""

    def __init__(self) -> None:
        self.total = Usage()
        self.run: RunState | None = None
        """The run in progress (or the last one)."""
        self.spenders: dict[str, Usage] = {}
        """What was counted on someone else's behalf, by who spent it (``mcp:SERVER sampling``); part of ``total``."""

    def count(self, usage: Usage, spender: str | None = None) -> None:
        """The one way usage is counted: a model reply, a delegated run, the advisor, a compaction, ``/research``,
        a server's sampling request; ``spender`` names who spent it when that was not the agent itself."""
        if self.run is not None:
            self.run.usage = self.run.usage + usage
        self.total = self.total + usage
        if spender is not None:
            self.spenders[spender] = self.spenders.get(spender, Usage()) + usage
