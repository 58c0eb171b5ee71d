"""Tracking's switches, and the invoking header of a declared (host-run) call, over the real loop and HTTP.

A declared-only tool is run by the host: the loop stops with the call in ``pending_calls``. Its
``ToolCallStarted`` (``host_run`` set) still goes into the stream and to observers, so a host shows it
invoked; no ``ToolCallFinished`` follows in that run. ``completion_events`` and ``report`` turn off the
observers' tool-call ends and the usage report.
"""

from __future__ import annotations

from pathlib import Path

from engine.events import ToolCallFinished, ToolCallStarted
from engine.tools.base import ToolSpec
from engine.tracking import TrackingOptions
from hive_cli.output.serialize import event_dict
from tests.support.agents import RecordingObserver, RecordingTool, Tracked
from tests.support.llm_server import LLMServer, call, text, tool_calls


def script_round_with_a_declared_call(server: LLMServer) -> None:
    server.script(
        tool_calls(call("echo", {"text": "x"}, id="e1"), call("ask_user", {"question": "which?"}, id="h1")),
        text("unused"),
    )


def tracked_with_a_declared_tool(
    server: LLMServer, tmp_path: Path, **options: bool
) -> tuple[Tracked, RecordingObserver]:
    observer = RecordingObserver()
    tracked = Tracked(server, tmp_path, [RecordingTool()], observers=[observer], options=TrackingOptions(**options))
    tracked.toolset.declare(ToolSpec(name="ask_user", description="Ask the user.", parameters={"type": "object"}))
    return tracked, observer


def test_a_declared_call_gets_its_invoking_header_in_the_stream_and_for_observers(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    script_round_with_a_declared_call(llm_server)
    tracked, observer = tracked_with_a_declared_tool(llm_server, tmp_path)
    events, result = tracked.run("paint it")

    assert result.exit_reason == "pending_tool_calls" and [c.id for c in result.pending_calls] == ["h1"]
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.call.id, e.host_run) for e in started] == [("h1", True), ("e1", False)]  # the header comes first
    header = started[0]
    assert header.call.name == "ask_user" and header.scope is not None and header.scope.depth == 1
    assert header.scope.label == "Calling ask_user Tool"
    assert [e.outcome.call.id for e in events if isinstance(e, ToolCallFinished)] == ["e1"]  # the host runs h1
    heard = [(e.call.id, e.host_run) for e in observer.events if isinstance(e, ToolCallStarted)]
    assert heard == [("h1", True), ("e1", False)]
    line = event_dict(header)
    assert line is not None and (line["type"], line["name"], line["host_run"]) == (
        "tool_call_started",
        "ask_user",
        True,
    )
    assert "host_run" not in (event_dict(started[1]) or {})  # the line of a call hive runs is as before


def test_observers_hear_every_call_end_and_get_the_report_by_default(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("echo", {"text": "a"}, id="c1")), text("done"))
    tracked, observer = tracked_with_a_declared_tool(llm_server, tmp_path)
    _, result = tracked.run("go")
    assert [e.outcome.call.id for e in observer.events if isinstance(e, ToolCallFinished)] == ["c1"]
    assert result.report is not None and observer.reports == [result.report]


def test_completion_events_off_leaves_observers_the_starts_and_the_stream_whole(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(tool_calls(call("echo", {"text": "a"}, id="c1")), text("done"))
    tracked, observer = tracked_with_a_declared_tool(llm_server, tmp_path, completion_events=False)
    events, result = tracked.run("go")
    assert [e.call.id for e in observer.events if isinstance(e, ToolCallStarted)] == ["c1"]
    assert not any(isinstance(e, ToolCallFinished) for e in observer.events)
    assert [e.outcome.call.id for e in events if isinstance(e, ToolCallFinished)] == ["c1"]  # in band: still there
    assert result.report is not None and observer.reports == [result.report]


def test_report_off_builds_no_report_for_the_result_or_the_observers(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("echo", {"text": "a"}, id="c1")), text("done"))
    tracked, observer = tracked_with_a_declared_tool(llm_server, tmp_path, report=False)
    _, result = tracked.run("go")
    assert result.report is None and observer.reports == []
    assert result.exit_reason == "completed" and result.usage.calls == 2  # the run's own usage is still counted
    assert any(isinstance(e, ToolCallFinished) for e in observer.events)
