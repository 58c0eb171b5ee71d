"""hive's own Anthropic client: routing, the request it builds, and streams that break, fail or are overloaded.

The recorded exchanges (tests/engine/model/test_cassette_replay.py) check the replies; these check what no
recording holds: translation corners, a stream cut before ``message_stop``, an ``error`` event inside a 200,
529 overloaded and a 429 with Retry-After.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from engine.errors import ProviderError
from engine.model.anthropic_client import AnthropicClient, messages_url
from engine.model.anthropic_request import default_max_tokens, request_body, tool_choice
from engine.model.client_settings import ModelSettings
from engine.model.failures import RetryPolicy
from engine.model.providers import anthropic_endpoint
from engine.model.types import CallOptions, ModelReply, ModelRequest, StreamItem, StreamRetry
from tests.support.cassettes import CassetteRequest, CassetteResponse, Exchange, ReplayServer

FAST_RETRY = RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.05, retry_after_cap_s=0.05)


# --- routing -----------------------------------------------------------------------------------------------------


def test_anthropic_models_take_hives_own_client_with_the_key_and_base_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_BASE", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    endpoint = anthropic_endpoint(ModelSettings(model="anthropic/claude-sonnet-4-5"))
    assert endpoint is not None
    assert (endpoint.base_url, endpoint.model_name, endpoint.api_key, endpoint.priced) == (
        "https://api.anthropic.com",
        "claude-sonnet-4-5",
        "sk-ant-env",
        True,
    )
    monkeypatch.setenv("ANTHROPIC_API_BASE", "http://proxy:8080")
    from_env = anthropic_endpoint(ModelSettings(model="anthropic/x"))
    assert from_env is not None and from_env.base_url == "http://proxy:8080"
    given = anthropic_endpoint(ModelSettings(model="anthropic/x", api_base="http://given"))
    assert given is not None and given.base_url == "http://given"


@pytest.mark.parametrize("model", ["openai/gpt-4o", "anthropic/", "anthropic", "bedrock/anthropic.claude"])
def test_other_models_do_not_take_the_anthropic_client(model: str) -> None:
    assert anthropic_endpoint(ModelSettings(model=model)) is None


def test_litellm_can_be_forced_for_anthropic_too(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = ModelSettings(model="anthropic/claude-sonnet-4-5")
    assert anthropic_endpoint(settings, force_litellm=True) is None
    monkeypatch.setenv("HIVE_PROVIDER_CLIENT", "litellm")
    assert anthropic_endpoint(settings) is None


@pytest.mark.parametrize(
    "base",
    [
        "https://api.anthropic.com",
        "https://api.anthropic.com/",
        "https://api.anthropic.com/v1",
        "https://api.anthropic.com/v1/messages",
    ],
)
def test_the_messages_url_is_found_from_any_base(base: str) -> None:
    assert messages_url(base) == "https://api.anthropic.com/v1/messages"


# --- the request -------------------------------------------------------------------------------------------------


def body_for(request: ModelRequest, model: str = "anthropic/claude-haiku-4-5") -> dict[str, Any]:
    return request_body(request, model=model, model_name=model.split("/", 1)[1], streaming=True)


def test_system_apart_and_tool_results_merged_into_one_user_turn_after_the_tool_use() -> None:
    call = {"id": "toolu_1", "type": "function", "function": {"name": "ls", "arguments": '{"path": "."}'}}
    messages = (
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": None, "tool_calls": [call, {**call, "id": "toolu_2"}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "a.txt"},
        {"role": "tool", "tool_call_id": "toolu_2", "content": [{"type": "text", "text": "b.txt"}]},
        {"role": "user", "content": "and now?"},
    )
    body = body_for(ModelRequest(messages=messages))
    assert body["system"] == [{"type": "text", "text": "Be brief."}]
    assert [turn["role"] for turn in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"][0] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "ls",
        "input": {"path": "."},
    }
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "b.txt"}]},
        {"type": "text", "text": "and now?"},
    ]


def test_tools_options_and_max_tokens() -> None:
    tool = {"type": "function", "function": {"name": "ls", "description": "List.", "parameters": {"type": "object"}}}
    options = CallOptions(temperature=0.2, tool_choice="required", parallel_tool_calls=False, extra=(("top_k", 5),))
    body = body_for(ModelRequest(messages=({"role": "user", "content": "x"},), tools=(tool,), options=options))
    assert body["tools"] == [{"name": "ls", "description": "List.", "input_schema": {"type": "object"}}]
    assert body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
    assert (body["temperature"], body["top_k"], body["stream"]) == (0.2, 5, True)
    assert body["max_tokens"] == 64_000  # litellm's default: the model's output limit from the table
    assert "thinking" not in body


def test_tool_choice_mapping() -> None:
    assert tool_choice("auto", None) == {"type": "auto"}
    assert tool_choice("none", False) == {"type": "none"}
    assert tool_choice("ls", None) == {"type": "tool", "name": "ls"}
    assert tool_choice(None, None) is None


def test_reasoning_effort_becomes_a_thinking_budget_with_room_for_the_answer() -> None:
    body = body_for(
        ModelRequest(messages=({"role": "user", "content": "x"},), options=CallOptions(reasoning_effort="low"))
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert body["max_tokens"] == 1024 + 4096
    assert default_max_tokens(None, "anthropic/not-a-listed-model") == 128_000
    explicit = CallOptions(max_tokens=300, extra=(("thinking", {"type": "enabled", "budget_tokens": 200}),))
    assert body_for(ModelRequest(messages=({"role": "user", "content": "x"},), options=explicit))["max_tokens"] == 300


# --- streams that fail -------------------------------------------------------------------------------------------


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


START = {
    "type": "message_start",
    "message": {"model": "claude-haiku-4-5", "content": [], "usage": {"input_tokens": 10, "output_tokens": 1}},
}
TEXT_START = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}


def text_delta(text: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}


def response(status: int, body: bytes, *headers: tuple[str, str]) -> Exchange:
    kind = "text/event-stream" if body.startswith(b"event:") else "application/json"
    answer = CassetteResponse(status, (("Content-Type", kind), *headers), body)
    return Exchange(CassetteRequest("POST", "/v1/messages", None), answer)


def run(*exchanges: Exchange) -> tuple[list[StreamItem], Exception | None, ReplayServer]:
    with ReplayServer(exchanges) as server:
        settings = ModelSettings(model="anthropic/claude-haiku-4-5", api_base=server.url, api_key="k", retry=FAST_RETRY)
        endpoint = anthropic_endpoint(settings)
        assert endpoint is not None
        client = AnthropicClient(settings, endpoint)
        items: list[StreamItem] = []

        async def go() -> None:
            async for item in client.stream(ModelRequest(messages=({"role": "user", "content": "hi"},))):
                items.append(item)

        try:
            asyncio.run(go())
        except Exception as exc:  # the test decides
            return items, exc, server
        return items, None, server


def test_a_stream_cut_before_the_message_ends_is_a_broken_reply_not_a_short_answer() -> None:
    _, error, _ = run(response(200, sse(START, TEXT_START, text_delta("Hello "), text_delta("wor"))))
    assert isinstance(error, ProviderError) and error.after_output
    assert "broke off after 9 characters" in str(error) and "/v1/messages" in str(error)


def test_a_stream_that_ends_inside_an_event_is_a_cut_stream_not_a_chunk_that_is_not_json() -> None:
    whole = sse(START, TEXT_START, text_delta("Hello "), text_delta("world"))
    _, error, _ = run(response(200, whole[: whole.rindex(b'"world"')]))
    assert isinstance(error, ProviderError) and (error.category, error.after_output) == ("transient", True)
    assert "broke off after 6 characters: the stream closed inside an event" in str(error)
    assert "not JSON" not in str(error)


def test_an_error_event_inside_a_200_stream_is_a_transient_failure_in_the_providers_words() -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    _, error, _ = run(response(200, sse(START, TEXT_START, text_delta("Hi"), overloaded)))
    assert isinstance(error, ProviderError)
    assert (error.category, error.after_output) == ("transient", True) and str(error).endswith("Overloaded")


def test_529_overloaded_is_retried_and_keeps_its_status() -> None:
    body = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    finished = sse(
        START,
        TEXT_START,
        text_delta("Hi"),
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    )
    items, error, server = run(response(529, body), response(200, finished))
    assert error is None and server.remaining == 0
    retry, reply = items[0], items[-1]
    assert isinstance(retry, StreamRetry) and retry.category == "transient"
    assert isinstance(reply, ModelReply) and (reply.text, reply.finish_reason) == ("Hi", "stop")
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (10, 2)


def test_a_rate_limit_waits_as_long_as_retry_after_says_then_gives_up() -> None:
    body = b'{"type":"error","error":{"type":"rate_limit_error","message":"Slow down."}}'
    limited = response(429, body, ("retry-after", "0.01"))
    items, error, _ = run(limited, limited)
    assert isinstance(error, ProviderError) and (error.category, error.status_code) == ("rate_limit", 429)
    assert error.retry_after_s == 0.01 and str(error).endswith("Slow down.")
    assert [item.delay_s for item in items if isinstance(item, StreamRetry)] == [0.01]


def test_openai_image_parts_become_anthropic_image_blocks() -> None:
    parts = [
        {"type": "text", "text": "What is in these?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
    ]
    body = body_for(ModelRequest(messages=({"role": "user", "content": parts},)))
    assert body["messages"][0]["content"][1:] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
    ]
