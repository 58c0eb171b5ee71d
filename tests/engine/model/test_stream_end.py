"""A reply that breaks off, or a 200 that is not a reply, fails with what came back; usage is what the server sent.

Each test runs through litellm's client (with the recording transport) and through hive's own.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from engine.errors import ContextOverflowError, ProviderError, UserError
from engine.model.litellm_client import LiteLLMClient, ModelSettings
from engine.model.openai_compat import OpenAICompatClient
from engine.model.providers import openai_compatible_endpoint
from engine.model.types import ModelClient, ModelReply, ModelRequest, StreamItem, StreamRetry
from engine.model.wire_record import WireRecord
from tests.support.agents import FAST_RETRY, client_for
from tests.support.llm_server import LLMServer, RawReply, Usage, context_overflow, raw, raw_sse, stream_cut, text

REQUEST = ModelRequest(messages=({"role": "user", "content": "hi"},))


@pytest.fixture(params=["litellm", "direct"])
def direct(request: pytest.FixtureRequest) -> bool:
    """Whether the test drives hive's own client (else litellm's)."""
    return bool(request.param == "direct")


def chunk(content: str | None, finish: str | None = None, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    choices = [] if content is None else [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]
    event: dict[str, Any] = {"id": "c1", "object": "chat.completion.chunk", "model": "test-model", "choices": choices}
    if usage is not None:
        event["usage"] = usage
    return event


def collect(client: ModelClient) -> list[StreamItem]:
    async def go() -> list[StreamItem]:
        return [item async for item in client.stream(REQUEST)]

    return asyncio.run(go())


def failure(server: LLMServer, direct: bool) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        collect(client_for(server, direct=direct))
    return caught.value


def test_a_stream_that_ends_without_finish_reason_or_done_is_a_cut_not_an_answer(
    llm_server: LLMServer, direct: bool
) -> None:
    llm_server.script(raw_sse(chunk("Hello "), chunk("wor"), done=False))
    error = failure(llm_server, direct)
    assert "broke off after 9 characters" in str(error) and llm_server.base_url in str(error)
    assert error.after_output and len(llm_server.chat_requests) == 1


def test_a_dropped_connection_mid_answer_says_so_with_the_url(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(stream_cut("This answer is cut off before it ends", after=3))
    error = failure(llm_server, direct)
    assert "broke off after" in str(error) and llm_server.base_url in str(error)
    assert "Connection error." not in str(error)


def test_done_without_a_finish_reason_is_still_a_whole_answer(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(raw_sse(chunk("Hello "), chunk("world"), done=True))
    reply = collect(client_for(llm_server, direct=direct))[-1]
    assert isinstance(reply, ModelReply) and reply.text == "Hello world"


@pytest.mark.parametrize(
    ("reply", "quoted"),
    [
        (raw(b"<html><body>Sign in</body></html>", content_type="text/html"), ["text/html", "<html><body>Sign in"]),
        (RawReply(body=(b"<!doctype html>",), headers=(("Content-Type", "text/html"),)), ["text/html", "<!doctype"]),
    ],
    ids=["html", "html-chunked"],
)
def test_a_200_that_is_not_a_completion_says_what_came_back(
    llm_server: LLMServer, direct: bool, reply: RawReply, quoted: list[str]
) -> None:
    llm_server.script(reply)
    error = failure(llm_server, direct)
    assert error.category == "bad_response" and not error.retryable
    for part in (*quoted, "HTTP 200", llm_server.base_url):
        assert part in str(error)


@pytest.mark.parametrize(
    ("reply", "quoted"),
    [
        (raw_sse(done=True), ["empty stream", "text/event-stream"]),
        (raw_sse(done=False), ["empty stream", "an empty body"]),
    ],
    ids=["only-done", "nothing"],
)
def test_an_empty_stream_is_asked_again_unstreamed_and_that_answer_wins(
    llm_server: LLMServer, direct: bool, reply: RawReply, quoted: list[str]
) -> None:
    llm_server.script(reply, context_overflow("llama_cpp", limit=2048, used=2900))
    with pytest.raises(ContextOverflowError) as caught:
        collect(client_for(llm_server, direct=direct))
    assert "2048" in str(caught.value) or "2,048" in str(caught.value)
    assert [bool(r.json.get("stream")) for r in llm_server.chat_requests] == [True, False]
    llm_server.script(reply, text("whole"))
    items = collect(client_for(llm_server, direct=direct))
    retry = next(item for item in items if isinstance(item, StreamRetry))
    assert all(part in retry.message for part in (*quoted, "HTTP 200", "without streaming"))
    assert isinstance(items[-1], ModelReply) and items[-1].text == "whole"


def test_a_chunk_that_is_not_json_is_named_plainly_and_not_retried(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(raw_sse("data: <b>oops</b>\n\n"))
    error = failure(llm_server, direct)
    assert "not JSON" in str(error) and "<b>oops</b>" in str(error)
    assert "Expecting value" not in str(error) and len(llm_server.chat_requests) == 1


def test_an_unreachable_server_is_named_by_its_url(direct: bool) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}/v1"
    settings = ModelSettings(model="openai/m", api_base=base, api_key="k", retry=FAST_RETRY)
    endpoint = openai_compatible_endpoint(settings)
    assert endpoint is not None
    client = OpenAICompatClient(settings, endpoint) if direct else LiteLLMClient(settings)
    with pytest.raises(ProviderError) as caught:
        collect(client)
    assert str(caught.value).startswith(f"could not reach {base}/chat/completions: ")


def test_a_stream_without_usage_reports_none_not_litellms_zeros(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(raw_sse(chunk("Hi", "stop")))
    reply = collect(client_for(llm_server, direct=direct))[-1]
    assert isinstance(reply, ModelReply)
    usage = reply.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.reasoning_tokens, usage.cached_read_tokens) == (
        None,
        None,
        None,
        None,
    )


def test_usage_is_read_as_the_server_sent_it(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(text("Hi", usage=Usage(prompt_tokens=12, completion_tokens=3)))
    reply = collect(client_for(llm_server, direct=direct))[-1]
    assert isinstance(reply, ModelReply)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (12, 3)


def test_an_unknown_provider_is_a_configuration_error_before_any_request(llm_server: LLMServer) -> None:
    settings = ModelSettings(model="nosuch/m", api_base=llm_server.base_url, api_key="k", model_source="HIVE_MODEL")
    with pytest.raises(UserError, match=r"^HIVE_MODEL is 'nosuch/m', but the provider 'nosuch' is unknown"):
        collect(LiteLLMClient(settings))
    assert llm_server.chat_requests == []


def test_the_record_reads_events_split_anywhere() -> None:
    body = (
        b'data: {"choices":[{"delta":{"content":"a"},"finish_reason":null}]}\n\n'
        b'data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1}}\n\n'
        b"data: [DONE]"
    )
    for split in range(1, len(body)):
        record = WireRecord(content_type="text/event-stream")
        record.take(body[:split])
        record.take(body[split:])
        record.finish()
        assert (record.events, record.done, record.finish_sent) == (2, True, False), split
        assert record.usage == {"prompt_tokens": 5, "completion_tokens": 1}
        assert record.received == len(body) and record.head == body[:200]
