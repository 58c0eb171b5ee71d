"""Error recovery through the real loop and clients: cut replies resumed, every stop with a fix-it line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import ErrorEvent, Retrying, TextDelta
from engine.model.client_settings import ModelSettings
from engine.model.openai_compat import OpenAICompatClient
from engine.model.providers import key_env_for, openai_compatible_endpoint
from engine.run.loop import AgentLoop, ToolEnvironment
from engine.run.recovery import fix_it
from engine.tools.registry import ToolRegistry
from tests.support.agents import FAST_RETRY, RecordingTool, client_for, run_events
from tests.support.llm_server import (
    Completion,
    HttpError,
    LLMServer,
    Usage,
    auth_error,
    call,
    server_error,
    stream_cut,
    text,
    tool_calls,
)

FIRST = "The capital of France is Paris, and the capital of Italy"
REST = " is Rome."


def loop_for(server: LLMServer, tmp_path: Path, *, direct: bool) -> AgentLoop:
    return AgentLoop(
        client=client_for(server, direct=direct),
        toolset=ToolRegistry([]),
        environment=ToolEnvironment(cwd=tmp_path, data_dir=tmp_path / ".hive-data"),
    )


@pytest.mark.parametrize("direct", [True, False], ids=["own-client", "litellm"])
def test_a_reply_cut_after_output_is_resumed_and_the_run_completes_with_the_whole_text(
    llm_server: LLMServer, tmp_path: Path, direct: bool
) -> None:
    # the role chunk, then 10-character pieces: 4 events carry the first 30 characters
    llm_server.script(
        Completion(text=FIRST, cut_after=4, chunk_size=10),
        text(REST, usage=Usage(prompt_tokens=40, completion_tokens=3)),
    )
    loop = loop_for(llm_server, tmp_path, direct=direct)
    events, result = run_events(loop, "capitals?")

    cut = FIRST[:30]
    assert result.exit_reason == "completed"
    assert result.text == cut + REST == "".join(e.text for e in events if isinstance(e, TextDelta))
    resumed = [e for e in events if isinstance(e, Retrying)]
    assert [(e.resumed, e.category) for e in resumed] == [(True, "transient")]
    sent = llm_server.chat_requests[1].messages
    assert sent[-2] == {"role": "assistant", "content": cut}
    assert sent[-1]["role"] == "user"
    assert f"cut off after: «{cut}». Continue exactly from there." in sent[-1]["content"]
    assert [m["role"] for m in loop.conversation.messages] == ["user", "assistant", "user", "assistant"]
    assert result.usage.calls == 2 and result.usage.estimated
    assert result.usage.completion_tokens is not None and result.usage.completion_tokens > 3


def test_the_note_quotes_only_the_last_200_characters(llm_server: LLMServer, tmp_path: Path) -> None:
    long = "".join(f"{n:04d} " for n in range(100))
    llm_server.script(Completion(text=long, cut_after=2, chunk_size=len(long)), text("."))
    _, result = run_events(loop_for(llm_server, tmp_path, direct=True), "count")
    note = llm_server.chat_requests[1].messages[-1]["content"]
    assert f"«{long[-200:]}»" in note and long[:-200] not in note
    assert result.text == long + "."


def test_a_second_cut_in_the_same_turn_stops_the_run_with_a_fix_it(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(stream_cut(FIRST, after=3), stream_cut(REST, after=2))
    events, result = run_events(loop_for(llm_server, tmp_path, direct=True), "capitals?")

    assert result.exit_reason == "error" and "broke off" in (result.error or "")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.fix for e in errors] == [fix_it("transient")] and result.fix == fix_it("transient")
    assert "api_base" in errors[0].fix
    assert len(llm_server.chat_requests) == 2
    assert result.usage.calls == 2


def test_an_auth_failure_stops_at_once_naming_the_key_variable(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(auth_error())
    events, result = run_events(loop_for(llm_server, tmp_path, direct=True), "hi")

    assert result.exit_reason == "error" and len(llm_server.chat_requests) == 1
    assert not [e for e in events if isinstance(e, Retrying)]
    assert result.fix is not None and "OPENAI_API_KEY" in result.fix and "api_key_env" in result.fix


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("openai/gpt-4o", "OPENAI_API_KEY"),
        ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("openrouter/x/y", "OPENROUTER_API_KEY"),
        ("gemini/gemini-2.5-pro", "GEMINI_API_KEY"),
    ],
)
def test_the_auth_fix_it_names_the_providers_key_variable(model: str, variable: str) -> None:
    assert fix_it("auth", key_env_for(model)).startswith(f"set {variable}, or HIVE_API_KEY, or pass --api-key")


def test_a_run_resumes_at_most_twice_and_a_cut_with_no_text_is_sent_again_without_a_note(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    cut_call = Completion(calls=(call("echo", {"text": "a long argument"}),), finish_reason="tool_calls", cut_after=2)
    echo = tool_calls(call("echo", {"text": "ping"}))
    llm_server.script(cut_call, echo, cut_call, echo, stream_cut(FIRST, after=3))
    loop = AgentLoop(
        client=client_for(llm_server, direct=True),
        toolset=ToolRegistry([RecordingTool()]),
        environment=ToolEnvironment(cwd=tmp_path, data_dir=tmp_path / ".hive-data"),
    )
    events, result = run_events(loop, "go")

    assert [e.attempt for e in events if isinstance(e, Retrying) and e.resumed] == [1, 2]
    assert result.exit_reason == "error" and len(result.tool_outcomes) == 2
    first, resent = llm_server.chat_requests[0].messages, llm_server.chat_requests[1].messages
    assert resent == first  # nothing of the cut call was text: the same request again
    assert len(llm_server.chat_requests) == 5


@pytest.mark.parametrize("failure", [server_error(503), server_error(500)], ids=["503", "500"])
def test_a_buffered_turn_that_fails_transiently_is_retried(
    llm_server: LLMServer, tmp_path: Path, failure: HttpError
) -> None:
    llm_server.script(failure, text("whole answer"))
    settings = ModelSettings(
        model="openai/test-model", api_base=llm_server.base_url, api_key="sk-test", streaming=False, retry=FAST_RETRY
    )
    endpoint = openai_compatible_endpoint(settings)
    assert endpoint is not None
    loop = AgentLoop(
        client=OpenAICompatClient(settings, endpoint),
        toolset=ToolRegistry([]),
        environment=ToolEnvironment(cwd=tmp_path, data_dir=tmp_path / ".hive-data"),
    )
    events, result = run_events(loop, "hi")

    assert result.exit_reason == "completed" and result.text == "whole answer"
    assert [(e.category, e.resumed) for e in events if isinstance(e, Retrying)] == [("transient", False)]
    assert [r.json.get("stream") for r in llm_server.chat_requests] == [False, False]
