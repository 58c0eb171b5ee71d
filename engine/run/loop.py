"""The agent loop: ask the model, run the tools it calls, repeat until it answers.

``run_streaming`` yields events as they happen and always ends with ``RunFinished``; ``run`` is the
buffered form. ``continue_streaming`` resumes from the history without a new user message (the
second half of a host-executed tool round trip).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing

from msgspec.structs import replace

from engine.context.policy import ContextPolicy, PassThrough, PreparedRequest
from engine.conversation import Conversation
from engine.errors import ContextOverflowError, ProviderError
from engine.events import (
    ROOT_AGENT,
    ContextCompacted,
    ErrorEvent,
    Event,
    ExitReason,
    ModelTurnStarted,
    RunFinished,
    RunResult,
    RunStarted,
    ToolCall,
    TurnCompleted,
    TurnRecord,
)
from engine.model.providers import key_env_for
from engine.model.slot import ModelSlot
from engine.model.types import (
    CallOptions,
    Message,
    ModelClient,
    ModelReply,
    ModelRequest,
)
from engine.run.attached_images import round_messages, user_content
from engine.run.cut_replies import close_cancelled_request, cut_usage, resume_after_cut
from engine.run.loop_setup import LoopOptions, ToolEnvironment, TurnObserver, chat_environment
from engine.run.state import Account, CallInProgress, Received, RoundInProgress, RunState, stream_event
from engine.run.tool_round import run_tool_round
from engine.run.trace import NoHooks, RunHooks, RunTrace
from engine.tools.base import ToolContext, Toolset
from engine.tools.compose import CombinedToolset

__all__ = ["AgentLoop", "LoopOptions", "ToolEnvironment", "TurnObserver"]


class AgentLoop:
    """One agent: a model, its tools and where they run, instructions and a conversation; only the model is needed."""

    def __init__(
        self,
        *,
        client: ModelClient | ModelSlot,
        toolset: Toolset | None = None,
        environment: ToolEnvironment | None = None,
        instructions: str = "",
        options: LoopOptions | None = None,
        conversation: Conversation | None = None,
        turn_observers: Sequence[TurnObserver] = (),
        hooks: RunHooks | None = None,
        context: ContextPolicy | None = None,
        agent_id: str = ROOT_AGENT,
        account: Account | None = None,
    ) -> None:
        self.model = client if isinstance(client, ModelSlot) else ModelSlot(client)
        """The model requests go to (the session's ``switch_model`` switches it)."""
        self.toolset: Toolset = toolset if toolset is not None else CombinedToolset(())
        """The tools offered (none: a plain chat)."""
        self.environment = environment or chat_environment()
        self.instructions = instructions
        self.options = options or LoopOptions()
        self.conversation = conversation if conversation is not None else Conversation()
        self.turn_observers = list(turn_observers)
        self.hooks: RunHooks = hooks or NoHooks()
        self.context: ContextPolicy = context or PassThrough()
        """Prepares each request from the history; shrinks the conversation when the provider refuses it."""
        self.agent_id = agent_id
        """Carried by every event of this loop: ``root``, or a sub-agent's name."""
        self.account = account or Account()
        """Usage of every run of this loop so far (the session total), and of the run in progress."""
        self._task: asyncio.Task[object] | None = None
        self._cancel_requested = False
        self._offered: frozenset[str] | None = None
        """The tools of the last request sent: the calls of its reply see them (``ToolContext.offered``)."""
        self.attached: tuple[Message, ...] = ()
        """Images (``image_url`` parts) for the next prompt, set by ``Session.attach`` once it checked the model."""

    # --- entry points -------------------------------------------------------------------

    def run_streaming(self, prompt: str, override: CallOptions | None = None) -> AsyncGenerator[Event, None]:
        """Add ``prompt`` (and the images ``attach`` gave) as a user message and run; yields events, ``RunFinished`` last."""
        images, self.attached = self.attached, ()
        self.conversation.append({"role": "user", "content": user_content(prompt, images)})
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

    def cancel(self) -> None:
        """Stop the run in progress: running tools are cancelled and the run ends with ``cancelled``."""
        self._cancel_requested = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    # --- the loop -----------------------------------------------------------------------

    async def _run(self, override: CallOptions | None, *, continuation: bool) -> AsyncGenerator[Event, None]:
        options = (override or CallOptions()).merged_onto(self.options.call_options)
        state = self.account.run = RunState()
        trace = self.hooks.begin(self.model.name, self.agent_id)
        self._cancel_requested = False
        self._task = asyncio.current_task()
        try:
            started = RunStarted(
                model=self.model.name, continuation=continuation, scope=trace.scope, agent=self.agent_id
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
            self._keep_what_was_cancelled(state, trace)
            state.ending = state.result("cancelled")
        except ProviderError as error:
            fix = self.options.recoveries.fix_it(error.category, key_env_for(self.model.name))
            yield ErrorEvent(category=error.category, message=str(error), fix=fix, agent=self.agent_id)
            state.ending = state.result("error", error=str(error), fix=fix)
        except BaseException:  # the consumer left (GeneratorExit) or something unexpected broke the run
            trace.abandoned()
            raise
        finally:
            self._task = None  # the run is over: a late cancel() has nothing to stop
        assert state.ending is not None
        yield RunFinished(result=trace.finished(state.ending), agent=self.agent_id)

    async def _turns(self, options: CallOptions, state: RunState, trace: RunTrace) -> AsyncGenerator[Event, None]:
        """Model turn, tool round, repeat; sets ``state.ending`` when the run should stop."""
        for index in range(self.options.max_turns):
            self._task = asyncio.current_task()
            refusal = self.options.limits.check(self.account.total)
            if refusal:
                yield ErrorEvent(
                    category="limit", message=refusal, fix=self.options.recoveries.fix_it("limit"), agent=self.agent_id
                )
                state.ending = state.result("usage_limit", error=refusal, fix=self.options.recoveries.fix_it("limit"))
                return
            turn = ModelTurnStarted(index=index, model=self.model.name, scope=trace.scope, agent=self.agent_id)
            trace.observe(turn)
            yield turn
            request = self._request(options)
            compacted = await self._maintained(request, state, trace)
            if compacted is not None:
                yield compacted
                request = self._request(options)
            reply = None
            async with aclosing(self._model_call(options, request, state, trace)) as items:
                async for item in items:
                    if isinstance(item, ModelReply):
                        reply = item
                    else:
                        yield item
            assert reply is not None
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
        yield ErrorEvent(
            category="limit", message=message, fix=self.options.recoveries.fix_it("limit"), agent=self.agent_id
        )
        state.ending = state.result("max_turns", error=message, fix=self.options.recoveries.fix_it("limit"))

    async def _model_call(
        self, options: CallOptions, request: ModelRequest, state: RunState, trace: RunTrace
    ) -> AsyncGenerator[Event | ModelReply, None]:
        """The model call of one turn, its reply added to the history and yielded last.

        A refused overflow is compacted and sent once more; a reply cut after output is resumed once
        (``engine.run.recovery``), and the reply yielded then carries the text of both parts.
        """
        cut_text, overflow_retried, resumed = "", False, False
        state.calling()
        while True:
            received = Received()
            state.call = CallInProgress(request=request, received=received)
            try:
                async with aclosing(self.model.client.stream(request)) as items:
                    async for item in items:
                        if isinstance(item, ModelReply):
                            state.call = None
                            self._add_reply(item, state, trace)
                            state.replied(cut_text + item.text)
                            yield replace(item, text=cut_text + item.text)
                        else:
                            received.add(item)
                            yield stream_event(item, self.agent_id)
                return
            except ContextOverflowError as overflow:
                compacts = self.options.recoveries.strategy_for(overflow) == "compact"
                retry_allowed = compacts and not overflow_retried and not received.any
                shrunk = await self._shrunk(overflow, request, retry_allowed=retry_allowed)
                overflow_retried = True
                self._pay_for(shrunk, state, trace)
                yield shrunk
            except ProviderError as error:
                state.broke_off(cut_text + received.text)
                if error.after_output:
                    self._pay_for_cut(request, received, state, trace)
                if resumed or not self._resumable(error, state):
                    raise
                resumed = True
                state.resumes += 1
                yield resume_after_cut(self.conversation, error, received.text, state.resumes, self.agent_id)
                cut_text += received.text
            request = self._request(options)

    def _add_reply(self, reply: ModelReply, state: RunState, trace: RunTrace) -> None:
        trace.replied(reply.usage, reply.model, reply.response_id)
        self.account.count(reply.usage)
        self.conversation.append(reply.to_message())

    def _pay_for_cut(self, request: ModelRequest, received: Received, state: RunState, trace: RunTrace) -> None:
        """A cut call reported no usage but cost tokens: they count, estimated."""
        usage = cut_usage(request, received.text, received.reasoning, self.model.name)
        trace.replied(usage, "")
        self.account.count(usage)

    async def _maintained(self, request: ModelRequest, state: RunState, trace: RunTrace) -> ContextCompacted | None:
        """The context policy's compaction ahead of the call, if the request has grown too large."""
        prepared = PreparedRequest(messages=request.messages, tools=request.tools)
        compacted = await self.context.maintain(self.conversation, prepared)
        self._pay_for(compacted, state, trace)
        return compacted

    def _pay_for(self, event: Event | None, state: RunState, trace: RunTrace) -> None:
        """A compaction's summary is a model call: its usage counts."""
        if isinstance(event, ContextCompacted) and event.usage is not None:
            trace.replied(event.usage, "")
            self.account.count(event.usage)

    async def _shrunk(self, overflow: ContextOverflowError, refused: ModelRequest, *, retry_allowed: bool) -> Event:
        """After a refused overflow: the context policy's compaction, or the error again when there is none."""
        prepared = PreparedRequest(messages=refused.messages, tools=refused.tools)
        compacted = await self.context.shrink(self.conversation, overflow, prepared) if retry_allowed else None
        if compacted is None:
            raise overflow
        return compacted

    def _keep_what_was_cancelled(self, state: RunState, trace: RunTrace) -> None:
        """A cancelled model call still costs (estimated), and what it streamed stays, marked as cancelled;
        a cancelled round keeps what its calls produced (partial output included) in the history."""
        call, state.call = state.call, None
        if call is not None and (call.received.opened or call.received.any):
            self._pay_for_cut(call.request, call.received, state, trace)
        close_cancelled_request(self.conversation, call.received.text if call is not None else "")
        if state.round is not None:
            state.turns.append(self._record_round(state.round))
            state.round = None
        self.conversation.answer_unanswered("Cancelled by the user before it finished.")

    def _take_own_cancellation(self) -> bool:
        """True when the cancellation came from ``cancel()`` (and is now absorbed)."""
        task = asyncio.current_task()
        if not self._cancel_requested or task is None:
            return False
        task.uncancel()
        return True

    async def _tool_turn(
        self, index: int, reply: ModelReply, state: RunState, trace: RunTrace
    ) -> AsyncGenerator[Event, None]:
        host_run = frozenset(s.name for s in self.toolset.specs() if s.declared_only)
        state.round = current = RoundInProgress(index=index, reply=reply, host_run=host_run)
        round_events = run_tool_round(current, self.toolset, self._tool_context, trace)
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

    def _record_round(self, current: RoundInProgress) -> TurnRecord:
        """Put a round's results in the history (in the order the model asked) and describe the turn."""
        reply, outcomes = current.reply, current.outcomes
        pending = tuple(c for c in reply.tool_calls if c.name in current.host_run)
        ordered = tuple(outcomes[c.id] for c in reply.tool_calls if c.id in outcomes)
        for message, success in round_messages(ordered, self.model.name, self.options.vision, pending=bool(pending)):
            self.conversation.append(message, success)
        return TurnRecord(
            index=current.index,
            text=reply.text,
            reasoning=reply.reasoning,
            tool_calls=reply.tool_calls,
            outcomes=ordered,
            pending_calls=pending,
            finish_reason=reply.finish_reason,
            model=reply.model or self.model.name,
            usage=reply.usage,
            response_id=reply.response_id,
        )

    # --- helpers ------------------------------------------------------------------------

    def _resumable(self, error: ProviderError, state: RunState) -> bool:
        """Whether the recovery table resumes ``error`` and the run has resumes left."""
        recoveries = self.options.recoveries
        return state.resumes < recoveries.max_resumes_per_run and recoveries.strategy_for(error) == "resume"

    def _tool_context(self, call: ToolCall) -> ToolContext:
        return self.environment.context(call, self.agent_id, self._offered)

    def _request(self, options: CallOptions) -> ModelRequest:
        prepared = self.context.prepare(self._history(), self._offered_tools(options))
        self._offered = offered_names(prepared.tools)
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

    async def _observe(self, record: TurnRecord) -> str | None:
        parts = []
        for observer in self.turn_observers:
            addendum = observer(record)
            if inspect.isawaitable(addendum):
                addendum = await addendum
            if addendum:
                parts.append(addendum)
        return "\n".join(parts) or None


def offered_names(tools: Sequence[dict[str, object]]) -> frozenset[str]:
    """The names of the tools in a request (OpenAI's ``{"type": "function", "function": {"name": ...}}``)."""
    functions = (tool.get("function") for tool in tools)
    names = (function.get("name") for function in functions if isinstance(function, dict))
    return frozenset(name for name in names if isinstance(name, str))


async def _final_result(events: AsyncIterator[Event]) -> RunResult:
    result = None
    async for event in events:
        if isinstance(event, RunFinished):
            result = event.result
    assert result is not None
    return result
