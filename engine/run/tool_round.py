"""Run one model turn's tool calls: read-only calls concurrently, the others one at a time, in order.

Events (call started, progress, approvals, call finished) are yielded the moment they happen, so a
host sees a running tool's progress before its result. Bad calls (unknown tool, unparsable
arguments) and crashing tools become error results for the model, never exceptions.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncGenerator, Callable, Sequence

from msgspec.structs import replace

from engine.events import Event, ToolCall, ToolCallFinished, ToolCallStarted, ToolOutcome
from engine.run.state import RoundInProgress
from engine.run.trace import CallTrace, RunTrace
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec

ContextFactory = Callable[[ToolCall], ToolContext]


def plan_batches(calls: Sequence[ToolCall], specs: dict[str, ToolSpec]) -> list[list[ToolCall]]:
    """Group consecutive read-only calls into one batch; every other call is a batch of its own."""
    batches: list[list[ToolCall]] = []
    last_read_only = False
    for call in calls:
        spec = specs.get(call.name)
        read_only = spec is not None and spec.read_only
        if read_only and last_read_only:
            batches[-1].append(call)
        else:
            batches.append([call])
        last_read_only = read_only
    return batches


async def run_tool_round(
    current: RoundInProgress, toolset: Toolset, make_context: ContextFactory, trace: RunTrace
) -> AsyncGenerator[Event, None]:
    """Run the calls of ``current``'s reply and yield their events; every call run ends with exactly one
    ``ToolCallFinished``.

    Calls of the ``current.host_run`` tools (declared-only) are not run: each gets only its ``ToolCallStarted``
    (``host_run`` set), first, so hosts and observers see it invoked; the host runs it and sends its result.
    Each outcome is also put in ``current.outcomes`` as it happens, so a round that is cancelled (its events no
    longer read) still leaves what its calls produced, partial output included.
    """
    host_run, outcomes = current.host_run, current.outcomes
    specs = {spec.name: spec for spec in toolset.specs()}
    declared = [c for c in current.reply.tool_calls if c.name in host_run]
    for event in _host_run_headers(declared, specs, trace, make_context):
        yield event
    calls = [c for c in current.reply.tool_calls if c.name not in host_run]
    queue: asyncio.Queue[Event] = asyncio.Queue()
    emit = _emitter(queue)
    for batch in plan_batches(calls, specs):
        tasks = [
            asyncio.create_task(
                _run_top_level(call, toolset, specs.get(call.name), make_context, emit, trace, outcomes)
            )
            for call in batch
        ]
        unfinished = {id(call) for call in batch}  # by identity: calls nested in these finish in the queue too
        try:
            while unfinished:
                event = await queue.get()
                if isinstance(event, ToolCallFinished):
                    unfinished.discard(id(event.outcome.call))
                yield event
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def _host_run_headers(
    calls: Sequence[ToolCall], specs: dict[str, ToolSpec], trace: RunTrace, make_context: ContextFactory
) -> list[Event]:
    """The best-effort invoking header of each declared-only call: its ``ToolCallStarted``, in this run's stream,
    enclosing runs' streams and the observers; no ``ToolCallFinished`` follows in this run."""
    headers: list[Event] = []
    for call in calls:
        spec = specs.get(call.name)
        kind, source = (spec.kind, spec.source) if spec else ("tool", None)
        call_trace = trace.call(call, kind, source, headers.append)
        read_only = bool(spec and spec.read_only)
        agent = make_context(call).agent_id
        call_trace.started(
            ToolCallStarted(call=call, read_only=read_only, scope=call_trace.scope, agent=agent, host_run=True)
        )
    return headers


def _emitter(queue: asyncio.Queue[Event]) -> Callable[[Event], None]:
    """A thread-safe way to put events on ``queue`` that keeps their order within the loop thread."""
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()

    def emit(event: Event) -> None:
        if threading.get_ident() == loop_thread:
            queue.put_nowait(event)
        else:
            loop.call_soon_threadsafe(queue.put_nowait, event)

    return emit


async def _run_top_level(
    call: ToolCall,
    toolset: Toolset,
    spec: ToolSpec | None,
    make_context: ContextFactory,
    emit: Callable[[Event], None],
    trace: RunTrace,
    outcomes: dict[str, ToolOutcome],
) -> None:
    ctx = make_context(call)
    ctx.call_id = call.id
    ctx.emit = emit
    call_trace = trace.call(call, spec.kind if spec else "tool", spec.source if spec else None, emit)
    await run_traced_call(call, toolset, spec, ctx, call_trace, outcomes)


async def run_traced_call(
    call: ToolCall,
    toolset: Toolset,
    spec: ToolSpec | None,
    ctx: ToolContext,
    call_trace: CallTrace,
    outcomes: dict[str, ToolOutcome] | None = None,
) -> ToolOutcome:
    """One call's whole lifecycle, the same at every depth: started, run (its scope ambient), finished.

    ``ToolCallFinished`` is sent even when the call is cancelled; its outcome also lands in ``outcomes``.
    The outcome's ``duration_s`` is the run time: the time spent waiting for a person is its ``waited_s``.
    """
    read_only = bool(spec and spec.read_only)
    call_trace.started(ToolCallStarted(call=call, read_only=read_only, scope=call_trace.scope, agent=ctx.agent_id))
    ctx = replace(ctx, waits=ctx.waits.nested())  # this call's own waits; they count for its callers too
    started = time.monotonic()
    result = ToolResult("Tool call cancelled.", False)
    try:
        with call_trace:
            result = await _dispatch(call, toolset, ctx)
    finally:
        waited = ctx.waits.waited_s
        outcome = ToolOutcome(
            call=call,
            output=result.output,
            success=result.success,
            duration_s=max(time.monotonic() - started - waited, 0.0),
            waited_s=waited,
            images=result.images if result.success is True else (),
        )
        if outcomes is not None:
            outcomes[call.id] = outcome
        call_trace.finished(ToolCallFinished(outcome=outcome, scope=call_trace.scope, agent=ctx.agent_id))
    return outcome


async def _dispatch(call: ToolCall, toolset: Toolset, ctx: ToolContext) -> ToolResult:
    """Run one call; the toolset itself answers for names it does not offer (unknown, or hidden by a mode)."""
    if call.parse_error:
        return ToolResult.error(
            f"Could not parse the arguments of {call.name}: {call.parse_error}. "
            f"Send the arguments as one JSON object. Received: {call.raw_arguments[:500]}"
        )
    try:
        return await toolset.call(call, ctx)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a crashing tool must not end the run; the model hears about it
        return ToolResult.error(f"Tool {call.name} failed unexpectedly: {type(exc).__name__}: {exc}")
