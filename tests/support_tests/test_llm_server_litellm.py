"""The scripted server and the replay server, driven through the real litellm -> openai SDK -> httpx path.

Besides proving compatibility, these pin down how litellm 1.110.2 reports each scripted failure, which is what
hive's provider layer has to classify.
"""

from __future__ import annotations

import importlib
import json
import os
from types import ModuleType
from typing import Any, cast

import pytest

from tests.support.cassettes import CASSETTE_DIR, ReplayServer
from tests.support.llm_server import (
    LLMServer,
    Usage,
    call,
    context_overflow,
    hang,
    rate_limited,
    stream_cut,
    stream_error,
    text,
    tool_calls,
)

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def litellm() -> ModuleType:
    """litellm, imported on first use (it takes seconds) with the bundled price map (no download attempt)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    module: Any = importlib.import_module("litellm")
    module.suppress_debug_info = True
    return cast("ModuleType", module)


def complete(litellm: ModuleType, server: LLMServer | ReplayServer, **options: Any) -> Any:
    """litellm.completion against the local server, with the SDK's own retries off."""
    options = {"messages": MESSAGES, "max_retries": 0, **options}
    return litellm.completion(model="openai/test-model", api_base=server.base_url, api_key="sk-test", **options)


def stream(litellm: ModuleType, server: LLMServer | ReplayServer, **options: Any) -> list[Any]:
    """All chunks of a streamed completion that asks for usage."""
    return list(complete(litellm, server, stream=True, stream_options={"include_usage": True}, **options))


def test_litellm_streams_the_text_and_reports_the_usage_chunk(litellm: ModuleType, llm_server: LLMServer) -> None:
    llm_server.script(text("Hello from the test server", usage=Usage(prompt_tokens=12, completion_tokens=5)))
    chunks = stream(litellm, llm_server)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Hello from the test server"
    assert "stop" in [c.choices[0].finish_reason for c in chunks if c.choices]
    usage = next(c.usage for c in chunks if getattr(c, "usage", None))
    assert (usage.prompt_tokens, usage.completion_tokens) == (12, 5)
    assert llm_server.last_request.json["stream_options"] == {"include_usage": True}


def test_litellm_assembles_streamed_tool_call_fragments_into_json(litellm: ModuleType, llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("read_file", {"path": "a.txt", "limit": 20}), call("ls", "")))
    chunks = stream(litellm, llm_server)
    message = litellm.stream_chunk_builder(chunks, messages=MESSAGES).choices[0].message
    assert [c.function.name for c in message.tool_calls] == ["read_file", "ls"]
    assert json.loads(message.tool_calls[0].function.arguments) == {"path": "a.txt", "limit": 20}
    assert message.tool_calls[1].function.arguments == "{}"


def test_litellm_returns_a_non_streaming_completion(litellm: ModuleType, llm_server: LLMServer) -> None:
    llm_server.script(text("plain", usage=Usage(prompt_tokens=3, completion_tokens=1, cached_tokens=2)))
    response = complete(litellm, llm_server)
    assert response.choices[0].message.content == "plain"
    assert response.usage.prompt_tokens_details.cached_tokens == 2


def test_litellm_429_is_a_rate_limit_error_with_retry_after_in_both_header_views(
    litellm: ModuleType, llm_server: LLMServer
) -> None:
    llm_server.script(rate_limited(retry_after=3))
    with pytest.raises(litellm.RateLimitError) as caught:
        stream(litellm, llm_server)
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "3"
    assert caught.value.litellm_response_headers["retry-after"] == "3"


def test_the_openai_sdk_retries_a_429_after_retry_after_when_retries_are_on(
    litellm: ModuleType, llm_server: LLMServer
) -> None:
    llm_server.script(rate_limited(retry_after=0.05), text("after the wait"))
    response = complete(litellm, llm_server, max_retries=1)
    assert response.choices[0].message.content == "after the wait"
    assert len(llm_server.chat_requests) == 2


@pytest.mark.parametrize(
    ("variant", "exception"),
    [
        ("openai", "ContextWindowExceededError"),
        ("llama_cpp", "ContextWindowExceededError"),
        ("vllm", "ContextWindowExceededError"),
        ("openai_new", "BadRequestError"),
    ],
)
def test_litellm_classifies_each_context_overflow_body(
    litellm: ModuleType, llm_server: LLMServer, variant: Any, exception: str
) -> None:
    llm_server.script(context_overflow(variant))
    with pytest.raises(getattr(litellm, exception)) as caught:
        stream(litellm, llm_server)
    assert type(caught.value).__name__ == exception


def test_litellm_rejects_a_stream_without_finish_reason_as_a_mid_stream_error(
    litellm: ModuleType, llm_server: LLMServer
) -> None:
    llm_server.script(tool_calls(call("ls"), finish_reason=None))
    expected = "Stream ended before a finish_reason was received"
    with pytest.raises(litellm.exceptions.MidStreamFallbackError, match=expected):
        stream(litellm, llm_server)


def test_litellm_reports_a_cut_stream_as_a_mid_stream_connection_error(
    litellm: ModuleType, llm_server: LLMServer
) -> None:
    llm_server.script(stream_cut(after=3))
    with pytest.raises(litellm.exceptions.MidStreamFallbackError, match="Connection error"):
        stream(litellm, llm_server)


def test_litellm_raises_an_in_stream_error_object_with_its_message(litellm: ModuleType, llm_server: LLMServer) -> None:
    llm_server.script(stream_error({"message": "Tool call validation failed", "type": "invalid_request_error"}))
    with pytest.raises(litellm.exceptions.MidStreamFallbackError, match="Tool call validation failed"):
        stream(litellm, llm_server)


def test_litellm_times_out_on_a_hang(litellm: ModuleType, llm_server: LLMServer) -> None:
    llm_server.script(hang())
    with pytest.raises(litellm.Timeout):
        stream(litellm, llm_server, timeout=0.3)


@pytest.mark.parametrize("call_id", ["", None])
def test_litellm_passes_an_empty_or_missing_call_id_through_but_its_chunk_builder_drops_the_call(
    litellm: ModuleType, llm_server: LLMServer, call_id: str | None
) -> None:
    llm_server.script(tool_calls(call("ls", {"a": 1}, id=call_id)))
    chunks = stream(litellm, llm_server)
    heads = [t for c in chunks if c.choices for t in c.choices[0].delta.tool_calls or [] if t.function.name]
    assert [(t.id, t.function.name) for t in heads] == [(call_id, "ls")]
    assert not litellm.stream_chunk_builder(chunks, messages=MESSAGES).choices[0].message.tool_calls


def test_litellm_replays_a_recorded_openai_tool_call_round_trip(litellm: ModuleType) -> None:
    with ReplayServer(CASSETTE_DIR / "openai/stream_tool_call_then_answer_include_usage.yaml") as server:
        first = stream(litellm, server)
        second = stream(litellm, server)
    message = litellm.stream_chunk_builder(first, messages=MESSAGES).choices[0].message
    assert message.tool_calls[0].function.name == "get_capital"
    assert json.loads(message.tool_calls[0].function.arguments) == {"country": "UK"}
    assert "London" in "".join(c.choices[0].delta.content or "" for c in second if c.choices)


def test_litellm_replays_a_recorded_anthropic_stream_on_the_root_url(litellm: ModuleType) -> None:
    with ReplayServer(CASSETTE_DIR / "anthropic/stream_text_then_two_tool_use.yaml") as server:
        chunks = list(
            litellm.completion(
                model="anthropic/claude-3-5-sonnet-20240620",
                api_base=server.url,
                api_key="sk-test",
                messages=MESSAGES,
                stream=True,
                max_retries=0,
            )
        )
        assert server.last_request.path == "/v1/messages"
    message = litellm.stream_chunk_builder(chunks, messages=MESSAGES).choices[0].message
    assert [c.function.name for c in message.tool_calls] == ["get_weather", "get_time"]
