"""Both model clients for the OpenAI protocol (litellm's and hive's own) against the scripted server.

Assembly quirks, retries and error classification: every test runs once per client, and both must
behave the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.errors import ContextOverflowError, ProviderError
from engine.model.types import ModelReply, ModelRequest, StreamItem, StreamReasoning, StreamRetry, StreamText
from tests.support.agents import client_for, make_loop, run_events
from tests.support.llm_server import (
    LLMServer,
    Usage,
    auth_error,
    call,
    context_overflow,
    hang,
    insufficient_quota,
    rate_limited,
    server_error,
    stream_cut,
    stream_error,
    text,
    tool_calls,
)

REQUEST = ModelRequest(messages=({"role": "user", "content": "hi"},))
DIRECT = {"direct": False}


@pytest.fixture(autouse=True, params=["litellm", "direct"])
def client_kind(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run each test through litellm's client, then through hive's own."""
    DIRECT["direct"] = request.param == "direct"
    yield request.param
    DIRECT["direct"] = False


def stream(server: LLMServer, *, timeout_s: float = 10.0) -> list[StreamItem]:
    async def go() -> list[StreamItem]:
        client = client_for(server, timeout_s=timeout_s, direct=DIRECT["direct"])
        return [item async for item in client.stream(REQUEST)]

    return asyncio.run(go())


def reply_of(items: list[StreamItem]) -> ModelReply:
    last = items[-1]
    assert isinstance(last, ModelReply)
    return last


@pytest.mark.parametrize(
    "quirks",
    [
        {},
        {"repeat_name": True},
        {"whole_arguments": True},
        {"finish_reason": None},
        {"repeat_name": True, "whole_arguments": True, "finish_reason": None},
    ],
    ids=["plain", "name-repeated", "arguments-whole", "no-finish-reason", "all-quirks"],
)
def test_parallel_tool_calls_assemble_whatever_the_server_quirks(
    llm_server: LLMServer, quirks: dict[str, object]
) -> None:
    llm_server.script(
        tool_calls(
            call("read_file", {"path": "src/app.py", "limit": 20}, id="call_a"),
            call("grep_files", {"pattern": "def \\w+\\(", "ignore_case": True}, id="call_b"),
            text="Let me look.",
            **quirks,  # type: ignore[arg-type]
        )
    )
    reply = reply_of(stream(llm_server))
    assert reply.text == "Let me look."
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_a", "read_file", {"path": "src/app.py", "limit": 20}),
        ("call_b", "grep_files", {"pattern": "def \\w+\\(", "ignore_case": True}),
    ]
    assert reply.finish_reason == "tool_calls"


def test_consecutive_calls_reuse_one_connection(llm_server: LLMServer) -> None:
    llm_server.script(text("one"), text("two"), text("three"))

    async def go() -> list[str]:
        client = client_for(llm_server, direct=DIRECT["direct"])
        return [reply_of([item async for item in client.stream(REQUEST)]).text for _ in range(3)]

    assert asyncio.run(go()) == ["one", "two", "three"]
    assert len({request.client_port for request in llm_server.chat_requests}) == 1


@pytest.mark.parametrize("call_id", ["", None], ids=["empty-id", "missing-id"])
def test_calls_without_an_id_get_distinct_generated_ids(llm_server: LLMServer, call_id: str | None) -> None:
    llm_server.script(tool_calls(call("a", {}, id=call_id), call("b", {"x": 1}, id=call_id)))
    calls = reply_of(stream(llm_server)).tool_calls
    assert [c.name for c in calls] == ["a", "b"]
    assert all(c.id.startswith("call_") for c in calls)
    assert calls[0].id != calls[1].id


def test_reasoning_streams_separately_from_the_answer(llm_server: LLMServer) -> None:
    llm_server.script(text("Four.", reasoning="Two plus two is four.", chunk_size=5))
    items = stream(llm_server)
    reasoning = "".join(i.text for i in items if isinstance(i, StreamReasoning))
    answer = "".join(i.text for i in items if isinstance(i, StreamText))
    assert (reasoning, answer) == ("Two plus two is four.", "Four.")
    assert reply_of(items).reasoning == "Two plus two is four."


def test_usage_keeps_cached_and_reasoning_tokens_and_unpriced_cost_stays_unknown(llm_server: LLMServer) -> None:
    llm_server.script(
        text("x", usage=Usage(prompt_tokens=1420, completion_tokens=30, cached_tokens=1280, reasoning_tokens=12))
    )
    usage = reply_of(stream(llm_server)).usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_read_tokens, usage.reasoning_tokens) == (
        1420,
        30,
        1280,
        12,
    )
    assert usage.cost_usd is None  # a local OpenAI-compatible server has no known price


def test_a_rate_limit_waits_for_retry_after_then_succeeds(llm_server: LLMServer) -> None:
    llm_server.script(rate_limited(retry_after=0.2), text("ok"))
    items = stream(llm_server)
    retries = [i for i in items if isinstance(i, StreamRetry)]
    assert [(r.category, r.attempt, r.delay_s) for r in retries] == [("rate_limit", 1, 0.2)]
    assert reply_of(items).text == "ok"
    assert len(llm_server.chat_requests) == 2


def test_retry_after_is_capped(llm_server: LLMServer) -> None:
    llm_server.script(rate_limited(retry_after=3600), text("ok"))
    retry = next(i for i in stream(llm_server) if isinstance(i, StreamRetry))
    assert retry.delay_s == 0.5  # FAST_RETRY's cap


def test_server_errors_are_retried_with_backoff_then_reported(llm_server: LLMServer) -> None:
    llm_server.script(server_error(500), server_error(503), server_error(500))
    with pytest.raises(ProviderError) as caught:
        stream(llm_server)
    assert caught.value.category == "transient"
    assert len(llm_server.chat_requests) == 3  # FAST_RETRY allows 3 attempts


def test_a_hang_times_out_and_is_retried(llm_server: LLMServer) -> None:
    llm_server.script(hang(), text("ok"))
    items = stream(llm_server, timeout_s=0.5)
    assert [i.category for i in items if isinstance(i, StreamRetry)] == ["transient"]
    assert reply_of(items).text == "ok"


@pytest.mark.parametrize("variant", ["openai", "openai_new", "llama_cpp", "vllm"])
def test_context_overflow_is_its_own_error_and_never_retried(llm_server: LLMServer, variant: str) -> None:
    llm_server.script(context_overflow(variant))  # type: ignore[arg-type]
    with pytest.raises(ContextOverflowError) as caught:
        stream(llm_server)
    assert caught.value.category == "context_overflow"
    assert len(llm_server.chat_requests) == 1


@pytest.mark.parametrize(
    ("reply", "category"),
    [(auth_error(), "auth"), (insufficient_quota(), "auth")],
    ids=["bad-key", "out-of-credit"],
)
def test_errors_that_retrying_cannot_fix_fail_at_once(llm_server: LLMServer, reply: object, category: str) -> None:
    llm_server.script(reply)  # type: ignore[arg-type]
    with pytest.raises(ProviderError) as caught:
        stream(llm_server)
    assert caught.value.category == category
    assert len(llm_server.chat_requests) == 1


@pytest.mark.parametrize(
    "reply", [stream_cut("Partial answer that never ends", after=3), stream_error(after=2)], ids=["cut", "error-event"]
)
def test_a_stream_that_fails_after_output_is_not_retried(llm_server: LLMServer, reply: object) -> None:
    llm_server.script(reply, text("should not be asked for"))  # type: ignore[arg-type]
    with pytest.raises(ProviderError) as caught:
        stream(llm_server)
    assert caught.value.after_output is True
    assert len(llm_server.chat_requests) == 1


def test_a_provider_failure_ends_the_run_with_an_error_event(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(auth_error())
    events, result = run_events(make_loop(llm_server, tmp_path), "hi")
    assert result.exit_reason == "error"
    errors = [e for e in events if e.kind == "error"]
    assert len(errors) == 1 and "credentials" in (result.error or "")
