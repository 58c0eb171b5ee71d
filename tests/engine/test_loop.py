"""The agent loop against the scripted server through the real litellm client."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from engine.errors import HistoryError
from engine.events import (
    RunFinished,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnCompleted,
    TurnRecord,
)
from engine.model.types import CallOptions
from engine.run.loop import LoopOptions
from engine.tools.base import ToolSpec
from engine.tools.registry import ToolRegistry
from engine.usage import UsageLimits
from tests.support.agents import RecordingTool, collect, kinds, make_loop, run_events
from tests.support.llm_server import LLMServer, Usage, call, text, tool_calls


def test_a_text_answer_streams_as_deltas_that_join_to_the_answer(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        text("Hello there, how can I help?", chunk_size=3, usage=Usage(prompt_tokens=12, completion_tokens=7))
    )
    events, result = run_events(make_loop(llm_server, tmp_path), "hi")

    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3
    assert "".join(deltas) == "Hello there, how can I help?" == result.text
    assert result.exit_reason == "completed"
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.calls) == (12, 7, 1)
    assert llm_server.chat_requests[0].json["stream_options"] == {"include_usage": True}
    assert kinds(events)[0] == "run_started" and kinds(events)[-1] == "run_finished"


def test_the_system_prompt_goes_first_but_never_into_the_history(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("ok"))
    loop = make_loop(llm_server, tmp_path, instructions="Be brief.")
    run_events(loop, "hi")
    assert llm_server.chat_requests[0].messages[0] == {"role": "system", "content": "Be brief."}
    assert [m["role"] for m in loop.conversation.messages] == ["user", "assistant"]


def test_a_tool_call_runs_and_its_result_goes_back_to_the_model(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("echo", {"text": "ping"}, id="call_1")), text("The tool said ping."))
    events, result = run_events(make_loop(llm_server, tmp_path, [RecordingTool()]), "use the tool")

    assert result.text == "The tool said ping."
    assert [o.output for o in result.tool_outcomes] == ["echo: ping"]
    assert result.tool_outcomes[0].success is True
    second = llm_server.chat_requests[1].messages
    sent_call = second[-2]["tool_calls"][0]["function"]
    assert (sent_call["name"], json.loads(sent_call["arguments"])) == ("echo", {"text": "ping"})
    assert second[-1] == {"role": "tool", "tool_call_id": "call_1", "content": "echo: ping"}
    assert kinds(events).count("turn_completed") == 2
    tool_names = [t["function"]["name"] for t in llm_server.chat_requests[0].json["tools"]]
    assert tool_names == ["echo"]


@pytest.mark.parametrize(
    ("raw_arguments", "expected"),
    [
        ("{not json", "Could not parse the arguments of echo"),
        ('{"delay": 0}', "Invalid arguments for echo: text: required but missing"),
        ("[1, 2]", "arguments must be a JSON object"),
    ],
)
def test_malformed_tool_arguments_go_back_to_the_model_as_an_error(
    llm_server: LLMServer, tmp_path: Path, raw_arguments: str, expected: str
) -> None:
    llm_server.script(tool_calls(call("echo", raw_arguments)), text("sorry"))
    _, result = run_events(make_loop(llm_server, tmp_path, [RecordingTool()]), "go")
    outcome = result.tool_outcomes[0]
    assert outcome.success is False
    assert expected in outcome.output
    assert expected in llm_server.chat_requests[1].messages[-1]["content"]
    assert result.exit_reason == "completed"


def test_an_unknown_tool_is_an_error_result_naming_the_real_tools(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("delete_everything", {})), text("ok"))
    _, result = run_events(make_loop(llm_server, tmp_path, [RecordingTool()]), "go")
    assert result.tool_outcomes[0].success is False
    assert "Unknown tool 'delete_everything'" in result.tool_outcomes[0].output
    assert "echo" in result.tool_outcomes[0].output


def test_empty_arguments_mean_no_arguments(llm_server: LLMServer, tmp_path: Path) -> None:
    registry = ToolRegistry([RecordingTool()])
    llm_server.script(tool_calls(call("echo", "")), text("ok"))
    _, result = run_events(make_loop(llm_server, tmp_path, toolset=registry), "go")
    assert result.tool_outcomes[0].call.arguments == {}
    assert "text: required but missing" in result.tool_outcomes[0].output


def test_read_only_calls_run_concurrently_and_writes_one_at_a_time(llm_server: LLMServer, tmp_path: Path) -> None:
    log: list[str] = []
    reader = RecordingTool("look", read_only=True, log=log)
    writer = RecordingTool("change", read_only=False, log=log)
    llm_server.script(
        tool_calls(
            call("look", {"text": "a", "delay": 0.2}),
            call("look", {"text": "b", "delay": 0.2}),
            call("change", {"text": "c", "delay": 0.1}),
            call("change", {"text": "d"}),
        ),
        text("done"),
    )
    _, result = run_events(make_loop(llm_server, tmp_path, [reader, writer]), "go")
    assert reader.max_in_flight == 2
    assert writer.max_in_flight == 1
    assert log[-4:] == ["start change c", "end change c", "start change d", "end change d"]
    assert [o.output for o in result.tool_outcomes] == ["echo: a", "echo: b", "echo: c", "echo: d"]


def test_each_tool_result_is_yielded_the_moment_it_finishes(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        tool_calls(call("echo", {"text": "slow", "delay": 0.3}, id="s"), call("echo", {"text": "fast"}, id="f")),
        text("done"),
    )
    events, result = run_events(make_loop(llm_server, tmp_path, [RecordingTool()]), "go")
    finished = [e.outcome.call.id for e in events if isinstance(e, ToolCallFinished)]
    started = [e.call.id for e in events if isinstance(e, ToolCallStarted)]
    assert started == ["s", "f"]
    assert finished == ["f", "s"]
    # the history keeps the order the model asked in
    assert [m["tool_call_id"] for m in llm_server.chat_requests[1].messages if m["role"] == "tool"] == ["s", "f"]


def test_declared_only_tools_stop_the_loop_and_continue_resumes_it(llm_server: LLMServer, tmp_path: Path) -> None:
    registry = ToolRegistry([RecordingTool()])
    registry.declare(ToolSpec(name="ask_user", description="Ask the user.", parameters={"type": "object"}))
    llm_server.script(
        tool_calls(call("echo", {"text": "x"}, id="e1"), call("ask_user", {"question": "which?"}, id="h1")),
        text("Thanks, using blue."),
    )
    loop = make_loop(llm_server, tmp_path, toolset=registry)
    _, result = run_events(loop, "paint it")
    assert result.exit_reason == "pending_tool_calls"
    assert [c.id for c in result.pending_calls] == ["h1"]
    assert [o.call.id for o in result.tool_outcomes] == ["e1"]

    with pytest.raises(HistoryError, match="h1"):
        asyncio.run(collect(loop.continue_streaming()))
    loop.conversation.add_tool_result("h1", "blue")
    events = asyncio.run(collect(loop.continue_streaming()))
    final = events[-1]
    assert isinstance(final, RunFinished) and final.result.text == "Thanks, using blue."
    assert llm_server.chat_requests[1].messages[-1] == {"role": "tool", "tool_call_id": "h1", "content": "blue"}
    assert len(llm_server.chat_requests) == 2


def test_continue_refuses_a_history_that_already_ends_with_an_answer(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("done"))
    loop = make_loop(llm_server, tmp_path)
    run_events(loop, "hi")
    with pytest.raises(HistoryError):
        asyncio.run(collect(loop.continue_streaming()))


def test_observer_addenda_reach_the_caller_but_never_the_history(llm_server: LLMServer, tmp_path: Path) -> None:
    seen: list[TurnRecord] = []

    def observer(record: TurnRecord) -> str | None:
        seen.append(record)
        return f"note about turn {record.index}" if record.tool_calls else None

    llm_server.script(tool_calls(call("echo", {"text": "x"})), text("final"))
    loop = make_loop(llm_server, tmp_path, [RecordingTool()], observers=[observer])
    events, result = run_events(loop, "go")

    assert [r.index for r in seen] == [0, 1]
    assert seen[0].outcomes[0].output == "echo: x" and seen[0].outcomes[0].success is True
    completed = [e for e in events if isinstance(e, TurnCompleted)]
    assert [e.addendum for e in completed] == ["note about turn 0", None]
    assert result.addenda == ("note about turn 0",)
    everything_sent = json.dumps([r.json for r in llm_server.chat_requests])
    assert "note about turn" not in everything_sent
    assert "note about turn" not in json.dumps(loop.conversation.messages)


def test_the_buffered_result_appends_the_addenda_to_its_content_and_keeps_them_apart(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    def observer(record: TurnRecord) -> str | None:
        return f"checked turn {record.index}" if record.index else "saw the tool round"

    llm_server.script(tool_calls(call("echo", {"text": "x"})), text('{"answer": 42}'))
    loop = make_loop(llm_server, tmp_path, [RecordingTool()], observers=[observer])
    result = asyncio.run(loop.run("go"))
    assert result.addenda == ("saw the tool round", "checked turn 1")
    assert result.content == '{"answer": 42}\n\nsaw the tool round\n\nchecked turn 1'
    assert json.loads(result.text) == {"answer": 42}  # the model's words alone, still parseable


def test_the_run_stops_at_max_turns(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(*[tool_calls(call("echo", {"text": str(i)})) for i in range(3)])
    loop = make_loop(llm_server, tmp_path, [RecordingTool()], options=LoopOptions(max_turns=3))
    events, result = run_events(loop, "loop forever")
    assert result.exit_reason == "max_turns"
    assert len(result.turns) == 3
    assert "error" in kinds(events)


def test_a_turn_past_the_token_limit_is_refused(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("echo", {"text": "x"}), usage=Usage(prompt_tokens=900, completion_tokens=200)))
    options = LoopOptions(limits=UsageLimits(max_total_tokens=1000))
    events, result = run_events(make_loop(llm_server, tmp_path, [RecordingTool()], options=options), "go")
    assert result.exit_reason == "usage_limit"
    assert "token limit reached: 1,100 tokens used of 1,000" in (result.error or "")
    assert len(llm_server.chat_requests) == 1


def test_a_per_turn_override_is_merged_onto_the_defaults(llm_server: LLMServer, tmp_path: Path) -> None:
    options = LoopOptions(call_options=CallOptions(temperature=0.2, max_tokens=100))
    loop = make_loop(llm_server, tmp_path, [RecordingTool("a"), RecordingTool("b")], options=options)
    llm_server.script(text("one"), text("two"))
    asyncio.run(collect(loop.run_streaming("first", CallOptions(max_tokens=50, tools=("b",)))))
    asyncio.run(collect(loop.run_streaming("second")))
    first, second = (r.json for r in llm_server.chat_requests)
    assert (first["temperature"], first["max_tokens"]) == (0.2, 50)
    assert [t["function"]["name"] for t in first["tools"]] == ["b"]
    assert (second["temperature"], second["max_tokens"]) == (0.2, 100)
    assert [t["function"]["name"] for t in second["tools"]] == ["a", "b"]


def test_cancel_stops_a_running_tool_and_keeps_the_history_valid(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("echo", {"text": "x", "delay": 30}, id="long")), text("after"))
    loop = make_loop(llm_server, tmp_path, [RecordingTool()])

    async def scenario() -> list[object]:
        seen = []
        async for event in loop.run_streaming("go"):
            seen.append(event)
            if isinstance(event, ToolCallStarted):
                asyncio.get_running_loop().call_later(0.1, loop.cancel)
        return seen

    events = asyncio.run(asyncio.wait_for(scenario(), 10))
    final = events[-1]
    assert isinstance(final, RunFinished) and final.result.exit_reason == "cancelled"
    assert loop.conversation.unanswered_calls() == []
    assert loop.conversation.messages[-1]["tool_call_id"] == "long"
    _, result = run_events(loop, "next question")
    assert result.text == "after"
