"""The agent loop: ask the model, run the tools it calls, repeat until it answers.

``run_streaming`` yields events as they happen and always ends with ``RunFinished``; ``run`` is the
buffered form. ``continue_streaming`` resumes from the history without a new user message (the
second half of a host-executed tool round trip).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path

from engine.context.policy import ContextPolicy, PassThrough, PreparedRequest
from engine.conversation import Conversation
from engine.defaults import DEFAULT_MAX_TURNS
from engine.errors import ContextOverflowError, ProviderError
from engine.events import (
    ROOT_AGENT,
    ContextCompacted,
    ErrorEvent,
    Event,
    ExitReason,
    ModelTurnStarted,
    ReasoningDelta,
    Retrying,
    RunFinished,
    RunResult,
    RunStarted,
    TextDelta,
    ToolCall,
    ToolOutcome,
    TurnCompleted,
    TurnRecord,
    Usage,
)
from engine.model.types import (
    CallOptions,
    ModelClient,
    ModelReply,
    ModelRequest,
    StreamReasoning,
    StreamRetry,
    StreamText,
)
from engine.run_hooks import NoHooks, RunHooks, RunTrace
from engine.tool_round import run_tool_round
from engine.tools.base import FileToolOptions, ToolContext, Toolset
from engine.usage import UsageLimits

TurnObserver = Callable[[TurnRecord], "str | None | Awaitable[str | None]"]
"""Sees every finished turn; may return an addendum for the caller (never added to the history)."""


@dataclass(frozen=True, kw_only=True)
class LoopOptions:
    """Defaults for every run of a loop."""

    max_turns: int = DEFAULT_MAX_TURNS
    """Model turns per run before the loop stops with ``max_turns``."""
    call_options: CallOptions = field(default_factory=CallOptions)
    limits: UsageLimits = field(default_factory=UsageLimits)


@dataclass(frozen=True, kw_only=True)
class ToolEnvironment:
    """Where tools run."""

    cwd: Path
    data_dir: Path
    file_options: FileToolOptions = field(default_factory=FileToolOptions)

    def context(self, call: ToolCall, agent_id: str = ROOT_AGENT) -> ToolContext:
        """A fresh context for one call."""
        return ToolContext(
            cwd=self.cwd, data_dir=self.data_dir, file_options=self.file_options, call_id=call.id, agent_id=agent_id
        )


@dataclass(kw_only=True)
class _RoundInProgress:
    """The tool round running now, so that a cancellation can keep what its calls produced."""

    index: int
    reply: ModelReply
    host_run: frozenset[str]
    """Names of the declared-only tools: their calls are left for the host."""
    outcomes: dict[str, ToolOutcome] = field(default_factory=dict)


class _RunState:
    """What one run has gathered so far."""

    def __init__(self) -> None:
        self.turns: list[TurnRecord] = []
        self.usage = Usage()
        self.addenda: list[str] = []
        self.ending: RunResult | None = None
        """Set when the run has decided to stop, with the result it stops with."""
        self.round: _RoundInProgress | None = None

    def result(self, reason: ExitReason, *, error: str | None = None, pending: Sequence[ToolCall] = ()) -> RunResult:
        text = self.turns[-1].text if self.turns else ""
        return RunResult(
            text=text,
            exit_reason=reason,
            turns=tuple(self.turns),
            usage=self.usage,
            pending_calls=tuple(pending),
            addenda=tuple(self.addenda),
            error=error,
        )


class AgentLoop:
    """One agent: a model, a toolset, instructions and a conversation."""

    def __init__(
        self,
        *,
        client: ModelClient,
        toolset: Toolset,
        environment: ToolEnvironment,
        instructions: str = "",
        options: LoopOptions | None = None,
        conversation: Conversation | None = None,
        turn_observers: Sequence[TurnObserver] = (),
        hooks: RunHooks | None = None,
        context: ContextPolicy | None = None,
        agent_id: str = ROOT_AGENT,
    ) -> None:
        self.client = client
        self.toolset = toolset
        self.environment = environment
        self.instructions = instructions
        self.options = options or LoopOptions()
        self.conversation = conversation if conversation is not None else Conversation()
        self.turn_observers = list(turn_observers)
        self.hooks: RunHooks = hooks or NoHooks()
        self.context: ContextPolicy = context or PassThrough()
        """Prepares each request from the history; shrinks the conversation when the provider refuses it."""
        self.agent_id = agent_id
        """Carried by every event of this loop: ``root``, or a sub-agent's name."""
        self.usage = Usage()
        """Usage of every run of this loop so far (the session total)."""
        self._task: asyncio.Task[object] | None = None
        self._cancel_requested = False
        self._state: _RunState | None = None

    # --- entry points -------------------------------------------------------------------

    def run_streaming(self, prompt: str, override: CallOptions | None = None) -> AsyncGenerator[Event, None]:
        """Add ``prompt`` as a user message and run; yields events, ``RunFinished`` last."""
        self.conversation.append({"role": "user", "content": prompt})
        return self._run(override, continuation=False)

    def continue_streaming(self, override: CallOptions | None = None) -> AsyncGenerator[Event, None]:
        """Run again from the history as it is; raises ``HistoryError`` if it cannot be continued."""
        self.conversation.check_continuable()
        return self._run(override, continuation=True)

    async def run(self, prompt: str, override: CallOptions | None = None) -> RunResult:
        """Buffered ``run_streaming``: the result of the run."""
        return await _final_result(self.run_streaming(prompt, override))

    async def continue_run(self, override: CallOptions | None = None) -> RunResult:
        """Buffered ``continue_streaming``."""
        return await _final_result(self.continue_streaming(override))

    def count_usage(self, usage: Usage) -> None:
        """Count model calls its tools made (a delegated run, the advisor) in the run's usage and the limits'."""
        if self._state is not None:
            self._state.usage = self._state.usage + usage
        self.usage = self.usage + usage

    def cancel(self) -> None:
        """Stop the run in progress: running tools are cancelled and the run ends with ``cancelled``."""
        self._cancel_requested = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    # --- the loop -----------------------------------------------------------------------

    async def _run(self, override: CallOptions | None, *, continuation: bool) -> AsyncGenerator[Event, None]:
        options = (override or CallOptions()).merged_onto(self.options.call_options)
        state = self._state = _RunState()
        trace = self.hooks.begin(self.client.model, self.agent_id)
        self._cancel_requested = False
        self._task = asyncio.current_task()
        try:
            started = RunStarted(
                model=self.client.model, continuation=continuation, scope=trace.scope, agent=self.agent_id
            )
            trace.observe(started)
            yield started
            async with aclosing(self._turns(options, state, trace)) as events:
                async for event in events:
                    yield event
        except asyncio.CancelledError:
            if not self._take_own_cancellation():
                trace.abandoned()
                raise
            self._keep_interrupted_round(state)
            self.conversation.answer_unanswered("Cancelled by the user before it finished.")
            state.ending = state.result("cancelled")
        except ProviderError as error:
            yield ErrorEvent(category=error.category, message=str(error), agent=self.agent_id)
            state.ending = state.result("error", error=str(error))
        except BaseException:  # the consumer left (GeneratorExit) or something unexpected broke the run
            trace.abandoned()
            raise
        assert state.ending is not None
        yield RunFinished(result=trace.finished(state.ending), agent=self.agent_id)

    async def _turns(self, options: CallOptions, state: _RunState, trace: RunTrace) -> AsyncGenerator[Event, None]:
        """Model turn, tool round, repeat; sets ``state.ending`` when the run should stop."""
        for index in range(self.options.max_turns):
            self._task = asyncio.current_task()
            refusal = self.options.limits.check(self.usage)
            if refusal:
                yield ErrorEvent(category="limit", message=refusal, agent=self.agent_id)
                state.ending = state.result("usage_limit", error=refusal)
                return
            turn = ModelTurnStarted(index=index, model=self.client.model, scope=trace.scope, agent=self.agent_id)
            trace.observe(turn)
            yield turn
            request = self._request(options)
            compacted = await self._maintained(request, state, trace)
            if compacted is not None:
                yield compacted
                request = self._request(options)
            reply = None
            for attempt in (1, 2):  # a second time only after the context policy shrank a refused overflow
                streamed = False
                if attempt == 2:
                    request = self._request(options)
                try:
                    async with aclosing(self.client.stream(request)) as items:
                        async for item in items:
                            if isinstance(item, ModelReply):
                                reply = item
                            else:
                                streamed = streamed or not isinstance(item, StreamRetry)
                                yield self._event_of(item)
                    break
                except ContextOverflowError as overflow:
                    shrunk = await self._shrunk(overflow, request, retry_allowed=attempt == 1 and not streamed)
                    self._pay_for(shrunk, state, trace)
                    yield shrunk
            assert reply is not None
            trace.replied(reply.usage, reply.model)
            self._count(reply.usage, state)
            self.conversation.append(reply.to_message())
            async with aclosing(self._tool_turn(index, reply, state, trace)) as events:
                async for event in events:
                    yield event
            last = state.turns[-1]
            if last.pending_calls or not reply.tool_calls:
                reason: ExitReason = "pending_tool_calls" if last.pending_calls else "completed"
                state.ending = state.result(reason, pending=last.pending_calls)
                return
        turns = self.options.max_turns
        message = f"stopped after {turns} model turn{'' if turns == 1 else 's'} (raise --max-turns to allow more)"
        yield ErrorEvent(category="limit", message=message, agent=self.agent_id)
        state.ending = state.result("max_turns", error=message)

    async def _maintained(self, request: ModelRequest, state: _RunState, trace: RunTrace) -> ContextCompacted | None:
        """The context policy's compaction ahead of the call, if the request has grown too large."""
        prepared = PreparedRequest(messages=request.messages, tools=request.tools)
        compacted = await self.context.maintain(self.conversation, prepared)
        self._pay_for(compacted, state, trace)
        return compacted

    def _pay_for(self, event: Event | None, state: _RunState, trace: RunTrace) -> None:
        """A compaction's summary is a model call: its usage counts."""
        if isinstance(event, ContextCompacted) and event.usage is not None:
            trace.replied(event.usage, "")
            self._count(event.usage, state)

    async def _shrunk(self, overflow: ContextOverflowError, refused: ModelRequest, *, retry_allowed: bool) -> Event:
        """After a refused overflow: the context policy's compaction, or the error again when there is none."""
        prepared = PreparedRequest(messages=refused.messages, tools=refused.tools)
        compacted = await self.context.shrink(self.conversation, overflow, prepared) if retry_allowed else None
        if compacted is None:
            raise overflow
        return compacted

    def _keep_interrupted_round(self, state: _RunState) -> None:
        """A cancelled round keeps what its calls produced (partial output included) in the history."""
        if state.round is not None:
            state.turns.append(self._record_round(state.round))
            state.round = None

    def _take_own_cancellation(self) -> bool:
        """True when the cancellation came from ``cancel()`` (and is now absorbed)."""
        task = asyncio.current_task()
        if not self._cancel_requested or task is None:
            return False
        task.uncancel()
        return True

    async def _tool_turn(
        self, index: int, reply: ModelReply, state: _RunState, trace: RunTrace
    ) -> AsyncGenerator[Event, None]:
        host_run = frozenset(s.name for s in self.toolset.specs() if s.declared_only)
        state.round = current = _RoundInProgress(index=index, reply=reply, host_run=host_run)
        runnable = [c for c in reply.tool_calls if c.name not in host_run]
        if runnable:
            round_events = run_tool_round(runnable, self.toolset, self._tool_context, trace, current.outcomes)
            async with aclosing(round_events) as events:
                async for event in events:
                    yield event
        state.round = None
        record = self._record_round(current)
        state.turns.append(record)
        addendum = await self._observe(record)
        if addendum:
            state.addenda.append(addendum)
        yield TurnCompleted(turn=record, addendum=addendum, agent=self.agent_id)

    def _record_round(self, current: _RoundInProgress) -> TurnRecord:
        """Put a round's results in the history (in the order the model asked) and describe the turn."""
        reply, outcomes = current.reply, current.outcomes
        pending = tuple(c for c in reply.tool_calls if c.name in current.host_run)
        ordered = tuple(outcomes[c.id] for c in reply.tool_calls if c.id in outcomes)
        for outcome in ordered:
            message = {"role": "tool", "tool_call_id": outcome.call.id, "content": outcome.output}
            self.conversation.append(message, outcome.success)
        return TurnRecord(
            index=current.index,
            text=reply.text,
            reasoning=reply.reasoning,
            tool_calls=reply.tool_calls,
            outcomes=ordered,
            pending_calls=pending,
            finish_reason=reply.finish_reason,
            model=reply.model or self.client.model,
            usage=reply.usage,
        )

    # --- helpers ------------------------------------------------------------------------

    def _tool_context(self, call: ToolCall) -> ToolContext:
        return self.environment.context(call, self.agent_id)

    def _request(self, options: CallOptions) -> ModelRequest:
        prepared = self.context.prepare(self._history(), self._offered_tools(options))
        return ModelRequest(messages=prepared.messages, tools=prepared.tools, options=options)

    def _history(self) -> tuple[dict[str, object], ...]:
        """The system prompt, then what the model sees of the conversation."""
        view = self.conversation.view()
        if not self.instructions:
            return view
        return ({"role": "system", "content": self.instructions}, *view)

    def _offered_tools(self, options: CallOptions) -> tuple[dict[str, object], ...]:
        specs = self.toolset.specs()
        if options.tools is not None:
            allowed = set(options.tools)
            specs = [s for s in specs if s.name in allowed]
        return tuple(s.to_openai() for s in specs)

    def _count(self, usage: Usage, state: _RunState) -> None:
        state.usage = state.usage + usage
        self.usage = self.usage + usage

    async def _observe(self, record: TurnRecord) -> str | None:
        parts = []
        for observer in self.turn_observers:
            addendum = observer(record)
            if inspect.isawaitable(addendum):
                addendum = await addendum
            if addendum:
                parts.append(addendum)
        return "\n".join(parts) or None

    def _event_of(self, item: StreamText | StreamReasoning | StreamRetry) -> Event:
        """The host event for a stream item."""
        if isinstance(item, StreamText):
            return TextDelta(text=item.text, agent=self.agent_id)
        if isinstance(item, StreamReasoning):
            return ReasoningDelta(text=item.text, agent=self.agent_id)
        return Retrying(
            category=item.category,
            message=item.message,
            attempt=item.attempt,
            delay_s=item.delay_s,
            agent=self.agent_id,
        )


async def _final_result(events: AsyncIterator[Event]) -> RunResult:
    result = None
    async for event in events:
        if isinstance(event, RunFinished):
            result = event.result
    assert result is not None
    return result
