"""Tool-call tracking end to end: the real loop and litellm client against the scripted server."""

from __future__ import annotations

import asyncio
import json
from contextlib import aclosing
from pathlib import Path

from msgspec import Struct, to_builtins

from engine.events import (
    ModelTurnStarted,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCall,
    ToolCallFinished,
    ToolCallStarted,
    ToolProgress,
)
from engine.tools.base import ArgsTool, ToolContext, ToolResult
from engine.tracking import call_tool, progress
from engine.usage import Usage
from tests.support.agents import RecordingObserver, RecordingTool, Tracked
from tests.support.llm_server import LLMServer, call, raw_sse, stream_error, text, tool_calls
from tests.support.llm_server import Usage as WireUsage


class StepsArgs(Struct):
    steps: int = 3
    secret: str = ""
    in_thread: bool = False


class StepsTool(ArgsTool[StepsArgs]):
    """Reports progress step by step, optionally from a worker thread, and some usage of its own."""

    name = "steps"
    description = "Work in steps."
    args_model = StepsArgs
    read_only = True

    async def execute(self, args: StepsArgs, ctx: ToolContext) -> ToolResult:
        for step in range(1, args.steps + 1):
            if args.in_thread:
                await asyncio.to_thread(progress.report, f"step {step}", step, args.steps)
            else:
                progress.report(f"step {step}", progress=step, total=args.steps)
            await asyncio.sleep(0.01)
        progress.report_usage(Usage(prompt_tokens=7, completion_tokens=3, calls=1))
        return ToolResult(f"did {args.steps} steps")


class FailingTool(ArgsTool[StepsArgs]):
    name = "explode"
    description = "Always raises."
    args_model = StepsArgs
    read_only = True

    async def execute(self, args: StepsArgs, ctx: ToolContext) -> ToolResult:
        raise RuntimeError("boom")


Point = tuple[str, str | None, str | None, int, str | None]
LIFECYCLE = (RunStarted, ModelTurnStarted, ToolCallStarted, ToolProgress, ToolCallFinished)


def point(e: object) -> Point | None:
    """A lifecycle event as (kind, scope, parent scope, depth, call id); None for other events."""
    if not isinstance(e, LIFECYCLE) or e.scope is None:
        return None
    call_id = None
    if isinstance(e, ToolCallStarted):
        call_id = e.call.id
    elif isinstance(e, ToolCallFinished):
        call_id = e.outcome.call.id
    elif isinstance(e, ToolProgress):
        call_id = e.call_id
    return (e.kind, e.scope.scope_id, e.scope.parent_scope_id, e.scope.depth, call_id)


def timeline(events: list[object]) -> list[Point]:
    """Every lifecycle point in stream order: the same events at every depth, each with its scope."""
    return [p for e in events if (p := point(e)) is not None]


def kinds_of(events: list[object]) -> list[str]:
    return [p[0] for p in timeline(events)]


def invoking(events: list[object], call_id: str) -> Point:
    return next(p for p in timeline(events) if p[0] == "tool_call_started" and p[4] == call_id)


def test_progress_arrives_in_band_before_the_tool_result_and_the_report_comes_last(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(
        tool_calls(call("steps", {"steps": 3}, id="c1"), usage=WireUsage(prompt_tokens=20, completion_tokens=5)),
        text("done", usage=WireUsage(prompt_tokens=30, completion_tokens=2)),
    )
    events, result = Tracked(llm_server, tmp_path, [StepsTool()]).run("go")

    assert kinds_of(events) == [
        "run_started",
        "model_turn_started",
        "tool_call_started",
        "tool_progress",
        "tool_progress",
        "tool_progress",
        "tool_call_finished",
        "model_turn_started",
    ]
    progress = [e for e in events if isinstance(e, ToolProgress)]
    assert [(e.status, e.progress, e.total) for e in progress] == [(f"step {n}", n, 3) for n in (1, 2, 3)]
    finished_at = next(i for i, e in enumerate(events) if isinstance(e, ToolCallFinished))
    last_progress = max(i for i, e in enumerate(events) if isinstance(e, ToolProgress))
    assert last_progress < finished_at
    assert isinstance(events[-1], RunFinished)
    report = result.report
    assert report is not None
    assert [u.prompt_tokens for u in report.turns] == [20, 30]
    assert report.assistant.prompt_tokens == 50
    assert report.tool_calls[0].usage.prompt_tokens == 7
    assert report.total.prompt_tokens == 57 and report.total.calls == 3
    assert (report.tool_calls[0].call_id, report.tool_calls[0].succeeded) == ("c1", True)


def test_every_event_carries_enough_to_rebuild_the_scope_tree(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("steps", {"steps": 1}, id="a"), call("steps", {"steps": 1}, id="b")), text("ok"))
    events, _ = Tracked(llm_server, tmp_path, [StepsTool()]).run("go")
    points = timeline(events)
    root = points[0]
    assert (root[0], root[2], root[3]) == ("run_started", None, 0)
    assert all(p[1:4] == root[1:4] for p in points if p[0] == "model_turn_started")
    headers = {p[4]: p for p in points if p[0] == "tool_call_started"}
    assert set(headers) == {"a", "b"}
    assert all(h[2] == root[1] and h[3] == 1 for h in headers.values())
    assert headers["a"][1] != headers["b"][1]
    for kind, scope, _, depth, call_id in points:
        if kind in ("tool_progress", "tool_call_finished"):
            assert call_id is not None and (scope, depth) == (headers[call_id][1], 1)
    started = next(e for e in events if isinstance(e, ToolCallStarted))
    assert started.scope is not None and started.scope.label == "Calling steps Tool"


def test_observers_hear_everything_even_from_worker_threads(llm_server: LLMServer, tmp_path: Path) -> None:
    observer = RecordingObserver()
    llm_server.script(
        tool_calls(*[call("steps", {"steps": 4, "in_thread": True}, id=f"t{i}") for i in range(3)]), text("ok")
    )
    events, result = Tracked(llm_server, tmp_path, [StepsTool()], observers=[observer]).run("go")
    # with tools running in parallel threads, the two channels may interleave differently
    heard = sorted(p for e in observer.events if (p := point(e)) is not None)
    assert heard == sorted(timeline(events))
    assert sum(1 for e in observer.events if isinstance(e, ToolProgress)) == 12
    assert len(observer.threads) > 1  # progress reported from worker threads reached the observer there
    assert observer.reports == [result.report]


def test_joining_the_text_deltas_gives_exactly_the_models_words(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("steps", {"steps": 2}), text="Let me work. "), text("All done."))
    events, _ = Tracked(llm_server, tmp_path, [StepsTool()]).run("go")
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Let me work. All done."


class OuterArgs(Struct):
    inner: str = "steps"


class CallsAnotherTool(ArgsTool[OuterArgs]):
    """A tool that invokes another tool through the tracked toolset."""

    name = "outer"
    description = "Calls another tool."
    args_model = OuterArgs
    read_only = True

    def __init__(self) -> None:
        self.toolset: object = None

    async def execute(self, args: OuterArgs, ctx: ToolContext) -> ToolResult:
        assert self.toolset is not None
        inner = ToolCall(id="inner-1", name=args.inner, arguments={"steps": 1})
        result = await call_tool(self.toolset, inner, ctx)  # type: ignore[arg-type]
        return ToolResult(f"inner said: {result.output}")


def test_a_tool_called_from_inside_another_is_a_grandchild(llm_server: LLMServer, tmp_path: Path) -> None:
    outer = CallsAnotherTool()
    tracked = Tracked(llm_server, tmp_path, [StepsTool(), outer])
    outer.toolset = tracked.toolset
    llm_server.script(tool_calls(call("outer", {}, id="o1")), text("ok"))
    events, result = tracked.run("go")

    outer_header, inner_header = invoking(events, "o1"), invoking(events, "inner-1")
    assert (inner_header[2], inner_header[3]) == (outer_header[1], 2)
    assert [p[0] for p in timeline(events) if p[4] == "inner-1"] == [
        "tool_call_started",
        "tool_progress",
        "tool_call_finished",
    ]
    inner = next(e for e in events if isinstance(e, ToolCallFinished) and e.outcome.call.id == "inner-1")
    assert inner.outcome.output == "did 1 steps" and inner.outcome.success is True
    assert result.report is not None
    outer_report = result.report.tool_calls[0]
    assert [c.call_id for c in outer_report.children] == ["inner-1"]
    assert outer_report.usage.prompt_tokens == 7  # the inner call's reported usage rolls up
    assert result.report.total.prompt_tokens == (result.report.assistant.prompt_tokens or 0) + 7


class SubAgentTool(ArgsTool[OuterArgs]):
    """Runs a whole tracked agent loop inside a tool call, like a delegated agent."""

    name = "delegate"
    description = "Runs a nested agent."
    args_model = OuterArgs
    read_only = True

    def __init__(self, server: LLMServer, tmp_path: Path) -> None:
        self.server = server
        self.tmp_path = tmp_path

    async def execute(self, args: OuterArgs, ctx: ToolContext) -> ToolResult:
        nested = Tracked(self.server, self.tmp_path, [StepsTool()])
        final = None
        async for event in nested.stream("sub task"):
            final = event
        assert isinstance(final, RunFinished)
        return ToolResult(f"sub-agent: {final.result.text}")


def test_a_nested_run_attaches_to_its_tool_and_rolls_its_usage_into_it(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        tool_calls(call("delegate", {}, id="d1"), usage=WireUsage(prompt_tokens=10, completion_tokens=1)),
        tool_calls(call("steps", {"steps": 1}, id="n1"), usage=WireUsage(prompt_tokens=100, completion_tokens=10)),
        text("nested done", usage=WireUsage(prompt_tokens=200, completion_tokens=20)),
        text("outer done", usage=WireUsage(prompt_tokens=40, completion_tokens=4)),
    )
    events, result = Tracked(llm_server, tmp_path, [SubAgentTool(llm_server, tmp_path)]).run("go")

    delegate = invoking(events, "d1")
    nested_root = next(p for p in timeline(events) if p[0] == "model_turn_started" and p[3] > 0)
    assert not any(
        isinstance(e, (RunStarted, RunFinished)) and e is not events[-1] and e is not events[0] for e in events
    )
    assert (nested_root[2], nested_root[3]) == (delegate[1], 2)
    nested_call = invoking(events, "n1")
    assert (nested_call[2], nested_call[3]) == (nested_root[1], 3)
    assert result.report is not None
    delegate_report = result.report.tool_calls[0]
    assert delegate_report.usage.prompt_tokens == 100 + 200 + 7
    assert result.report.total.prompt_tokens == 10 + 40 + 307
    assert result.report.total.calls == 2 + 2 + 1


def test_a_tool_that_raises_is_reported_as_failed(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("explode", {}, id="x")), text("it failed"))
    events, result = Tracked(llm_server, tmp_path, [FailingTool()]).run("go")
    failed = [e for e in events if isinstance(e, ToolCallFinished) and e.outcome.success is False]
    assert len(failed) == 1 and "RuntimeError: boom" in failed[0].outcome.output
    assert result.report is not None and result.report.tool_calls[0].succeeded is False
    assert result.exit_reason == "completed"


def test_a_model_error_mid_stream_still_delivers_request_failed_and_the_report(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    observer = RecordingObserver()
    llm_server.script(tool_calls(call("steps", {"steps": 1})), stream_error(after=2))
    events, result = Tracked(llm_server, tmp_path, [StepsTool()], observers=[observer]).run("go")
    assert result.exit_reason == "error"
    assert result.report is not None and result.report.outcome == "failed"
    assert observer.reports == [result.report]
    assert result.report.tool_calls[0].usage.prompt_tokens == 7


def test_a_consumer_that_stops_early_still_gets_accounting_and_leaves_no_task(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    observer = RecordingObserver()
    tracked = Tracked(llm_server, tmp_path, [RecordingTool()], observers=[observer])
    llm_server.script(tool_calls(call("echo", {"text": "x", "delay": 30}), usage=WireUsage(prompt_tokens=11)))

    async def abandon() -> set[asyncio.Task[object]]:
        async with asyncio.timeout(10), aclosing(tracked.stream("go")) as events:
            async for event in events:
                if isinstance(event, ToolCallStarted):
                    break
        await asyncio.sleep(0)
        current = asyncio.current_task()
        return {t for t in asyncio.all_tasks() if t is not current}

    leftover = asyncio.run(abandon())
    assert leftover == set()
    last = observer.events[-1]  # the call the consumer walked away from ends as failed
    assert isinstance(last, ToolCallFinished) and last.outcome.success is False
    assert len(observer.reports) == 1
    assert observer.reports[0].outcome == "failed"
    assert observer.reports[0].assistant.prompt_tokens == 11


def test_tracking_never_carries_arguments_unless_asked(llm_server: LLMServer, tmp_path: Path) -> None:
    secret = "hunter2-do-not-log"
    for opted_in in (False, True):
        observer = RecordingObserver()
        llm_server.script(tool_calls(call("steps", {"steps": 1, "secret": secret})), text("ok"))
        events, result = Tracked(
            llm_server, tmp_path, [StepsTool()], observers=[observer], include_tool_arguments=opted_in
        ).run("go")
        scopes = [
            to_builtins(e.scope) for e in events if isinstance(e, (ToolCallStarted, ToolCallFinished)) and e.scope
        ]
        tracked_text = json.dumps(
            [to_builtins(e) for e in events if isinstance(e, ToolProgress)]
            + scopes
            + [to_builtins(result.report)]
            + [to_builtins(e) for e in observer.events]
        )
        heard = [e for e in observer.events if isinstance(e, (ToolCallStarted, ToolCallFinished))]
        assert len(heard) == 2
        if opted_in:
            assert isinstance(heard[0], ToolCallStarted)
            assert heard[0].call.arguments == {"steps": 1, "secret": secret}
            assert heard[0].call.raw_arguments == ""
        else:
            assert secret not in tracked_text
        assert "did 1 steps" not in tracked_text  # tool results never appear
        assert "You are a test agent" not in tracked_text and '"go"' not in tracked_text


def test_unreported_usage_stays_unreported_in_the_report(llm_server: LLMServer, tmp_path: Path) -> None:
    choice = {"index": 0, "delta": {"content": "no usage here"}, "finish_reason": "stop"}
    llm_server.script(raw_sse({"id": "c", "object": "chat.completion.chunk", "choices": [choice]}))  # no usage sent
    _, result = Tracked(llm_server, tmp_path, []).run("go")
    assert result.report is not None
    assert result.report.assistant.prompt_tokens is None
    assert result.report.assistant.calls == 1
