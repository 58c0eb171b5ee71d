"""``request_timeout`` is each call's overall deadline, and a stream that closes inside an event is a cut stream.

A server that trickles one byte at a time never lets a per-read timeout expire; the deadline ends the try
anyway, as a timeout that is retried before any output and kept (then resumed by the loop) after some.
Every client hive has is driven over real HTTP: hive's chat-completions and Responses clients, and litellm.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import pytest

from engine.errors import ProviderError
from engine.model.client_settings import ModelSettings
from engine.model.failures import RetryPolicy
from engine.model.litellm_client import LiteLLMClient
from engine.model.openai_compat import OpenAICompatClient
from engine.model.openai_responses import OpenAIResponsesClient
from engine.model.providers import openai_compatible_endpoint, responses_endpoint
from engine.model.types import ModelClient, ModelReply, ModelRequest, StreamItem, StreamRetry, StreamText
from tests.support.llm_server import LLMServer, stream_cut_mid_event, text, trickled

REQUEST = ModelRequest(messages=({"role": "user", "content": "hi"},))
THREE_TRIES = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05, retry_after_cap_s=0.05)
LONG_ANSWER = "A long answer that a slow server sends one byte at a time. " * 20
"""Thousands of bytes of events: at 50 ms a byte, the trickle would take minutes."""


def chat(server: LLMServer, timeout_s: float) -> ModelClient:
    settings = _settings("openai/test-model", server, timeout_s)
    endpoint = openai_compatible_endpoint(settings)
    assert endpoint is not None
    return OpenAICompatClient(settings, endpoint)


def responses(server: LLMServer, timeout_s: float) -> ModelClient:
    settings = _settings("openai/responses/test-model", server, timeout_s)
    endpoint = responses_endpoint(settings)
    assert endpoint is not None
    return OpenAIResponsesClient(settings, endpoint)


def litellm(server: LLMServer, timeout_s: float) -> ModelClient:
    return LiteLLMClient(_settings("openai/test-model", server, timeout_s))


def _settings(model: str, server: LLMServer, timeout_s: float) -> ModelSettings:
    return ModelSettings(
        model=model, api_base=server.base_url, api_key="sk-test", timeout_s=timeout_s, retry=THREE_TRIES
    )


ClientMaker = Callable[[LLMServer, float], ModelClient]


@pytest.fixture(params=[chat, responses, litellm], ids=["chat", "responses", "litellm"])
def make_client(request: pytest.FixtureRequest) -> ClientMaker:
    maker: ClientMaker = request.param
    return maker


READY = text("Ready.")
"""The first reply of every test: a whole call first, so that what a client loads once (litellm's first call
imports for seconds) is not timed by the deadline under test."""


def tries(server: LLMServer) -> int:
    """The requests the call under test made (the warm-up call's left out)."""
    return len(server.chat_requests) + len(server.responses_requests) - 1


async def _consume(client: ModelClient, items: list[StreamItem]) -> None:
    async for _ in client.stream(REQUEST):
        pass
    async for item in client.stream(REQUEST):
        items.append(item)


def run(client: ModelClient) -> tuple[list[StreamItem], ProviderError | None]:
    """The items the call after the warm-up yielded, and the error it ended with (None when it answered)."""
    items: list[StreamItem] = []
    try:
        asyncio.run(_consume(client, items))
    except ProviderError as error:
        return items, error
    return items, None


def test_a_trickling_reply_ends_at_the_deadline_as_a_timeout_and_is_retried(
    llm_server: LLMServer, make_client: ClientMaker
) -> None:
    llm_server.script(READY, *(trickled(text(LONG_ANSWER), 0.05) for _ in range(3)))
    items, error = run(make_client(llm_server, 1))
    assert error is not None and (error.category, error.after_output) == ("transient", False)
    assert "did not finish within request_timeout 1s" in str(error) and "not JSON" not in str(error)
    assert "bytes of it arrived" in str(error) and llm_server.base_url in str(error)
    retries = [item for item in items if isinstance(item, StreamRetry)]
    assert [retry.attempt for retry in retries] == [1, 2] and tries(llm_server) == 3
    assert all("did not finish within request_timeout 1s" in retry.message for retry in retries)


def test_what_streamed_before_the_deadline_is_kept_as_a_cut_reply(
    llm_server: LLMServer, make_client: ClientMaker
) -> None:
    llm_server.script(READY, trickled(text(LONG_ANSWER), 0.05, after=8))
    items, error = run(make_client(llm_server, 5))  # the first 8 events come at once, even on a loaded machine
    arrived = "".join(item.text for item in items if isinstance(item, StreamText))
    assert error is not None and (error.category, error.after_output) == ("transient", True)
    assert arrived and LONG_ANSWER.startswith(arrived) and len(arrived) < len(LONG_ANSWER)
    assert f"broke off after {len(arrived)} characters: did not finish within request_timeout 5s" in str(error)
    assert tries(llm_server) == 1  # output arrived: the loop resumes it, the client does not retry


def test_a_stream_that_closes_inside_an_event_after_output_is_a_cut_stream(
    llm_server: LLMServer, make_client: ClientMaker
) -> None:
    llm_server.script(READY, stream_cut_mid_event("This answer is cut inside an event", after=8))
    _, error = run(make_client(llm_server, 10))
    assert error is not None and (error.category, error.after_output) == ("transient", True)
    assert "broke off after" in str(error) and "not JSON" not in str(error)


def test_a_stream_that_closes_inside_its_first_event_is_retried_like_a_cut(
    llm_server: LLMServer, make_client: ClientMaker
) -> None:
    llm_server.script(READY, stream_cut_mid_event(after=0), text("Whole answer."))
    items, error = run(make_client(llm_server, 10))
    assert error is None and tries(llm_server) == 2
    (retry,) = [item for item in items if isinstance(item, StreamRetry)]
    assert retry.category == "transient" and "not JSON" not in retry.message
    reply = items[-1]
    assert isinstance(reply, ModelReply) and reply.text == "Whole answer."


HELD_DEADLINE_S = 5.0
"""Long enough for a local reply on a loaded machine; the caller alone holds an item for longer than that."""


def test_the_deadline_does_not_count_the_time_the_caller_holds_an_item(
    llm_server: LLMServer, make_client: ClientMaker
) -> None:
    llm_server.script(READY, text("Hello, slow reader.", chunk_size=4))
    client = make_client(llm_server, HELD_DEADLINE_S)

    async def slow_reader() -> list[StreamItem]:
        items = []
        answer = asyncio.Event()  # what the caller waits for with an item (a person's answer, say): it never comes
        async for _ in client.stream(REQUEST):
            pass
        async for item in client.stream(REQUEST):
            if not items:  # the caller holds the first item past the whole deadline
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(answer.wait(), HELD_DEADLINE_S + 0.5)
            items.append(item)
        return items

    reply = asyncio.run(slow_reader())[-1]
    assert isinstance(reply, ModelReply) and reply.text == "Hello, slow reader."
