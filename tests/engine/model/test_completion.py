"""``complete`` against the scripted server: one whole answer, or one ``ModelCallFailed`` saying why not.

Each test runs through litellm's client and through hive's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from engine.errors import ProviderError, RunError
from engine.model.completion import ModelCallFailed, complete
from engine.model.types import ModelClient, ModelReply, ModelRequest, StreamItem, StreamOpened
from engine.usage import Usage as SpentUsage
from tests.support.agents import FAST_RETRY, client_for
from tests.support.llm_server import LLMServer, Usage, call, server_error, stream_cut, text, tool_calls

REQUEST = ModelRequest(
    messages=({"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "What is 2 + 2?"})
)


@pytest.fixture(params=["litellm", "direct"])
def direct(request: pytest.FixtureRequest) -> bool:
    """Whether the test drives hive's own client (else litellm's)."""
    return bool(request.param == "direct")


def completed(client: ModelClient, counted: list[SpentUsage] | None = None) -> ModelReply:
    """The reply ``complete`` returns; what it counted goes into ``counted``."""
    sink = counted.append if counted is not None else None
    return asyncio.run(complete(client, REQUEST, count=sink))


def failure(client: ModelClient, counted: list[SpentUsage] | None = None) -> ModelCallFailed:
    """The ``ModelCallFailed`` that ``complete`` raises."""
    with pytest.raises(ModelCallFailed) as caught:
        completed(client, counted)
    return caught.value


def test_a_normal_answer_comes_back_whole_with_its_usage_counted_once(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(text("Four, as it always was.", chunk_size=3, usage=Usage(prompt_tokens=21, completion_tokens=6)))
    counted: list[SpentUsage] = []
    reply = completed(client_for(llm_server, direct=direct), counted)
    assert reply.text == "Four, as it always was." and reply.finish_reason == "stop"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (21, 6)
    assert counted == [reply.usage]
    assert llm_server.chat_requests[0].json["messages"][1]["content"] == "What is 2 + 2?"


def test_an_answer_of_tool_calls_alone_is_an_answer(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(tool_calls(call("read_file", {"path": "a.txt"})))
    reply = completed(client_for(llm_server, direct=direct))
    assert [c.name for c in reply.tool_calls] == ["read_file"] and reply.text == ""


def test_an_http_500_that_outlasts_the_retries_fails_with_the_providers_words(
    llm_server: LLMServer, direct: bool
) -> None:
    llm_server.script(*[server_error(500, "the GPU caught fire")] * FAST_RETRY.max_attempts)
    counted: list[SpentUsage] = []
    error = failure(client_for(llm_server, direct=direct), counted)
    assert error.kind == "provider" and error.reply is None and counted == []
    assert isinstance(error.cause, ProviderError) and str(error) == str(error.cause)
    assert "the GPU caught fire" in str(error)
    assert (error.category, error.status_code) == ("transient", 500)
    assert isinstance(error, RunError) and error.exit_code == 1
    assert len(llm_server.chat_requests) == FAST_RETRY.max_attempts


def test_a_stream_cut_after_some_text_fails_and_is_not_taken_for_a_short_answer(
    llm_server: LLMServer, direct: bool
) -> None:
    llm_server.script(stream_cut("This answer is cut off before it", after=3))
    error = failure(client_for(llm_server, direct=direct))
    assert error.kind == "provider" and error.reply is None
    assert error.after_output and "broke off" in str(error)
    assert len(llm_server.chat_requests) == 1  # output had come: not retried


def test_an_empty_answer_fails_but_keeps_the_reply_and_counts_what_it_cost(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(text("", usage=Usage(prompt_tokens=30, completion_tokens=0)))
    counted: list[SpentUsage] = []
    error = failure(client_for(llm_server, direct=direct), counted)
    assert error.kind == "empty" and str(error) == "openai/test-model answered with nothing"
    assert error.reply is not None and error.reply.text == ""
    assert [u.prompt_tokens for u in counted] == [30]
    assert error.category == "bad_response" and error.cause is None


def test_a_refusal_fails_with_what_came_back(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(text("I cannot help with that.", finish_reason="content_filter"))
    error = failure(client_for(llm_server, direct=direct))
    assert error.kind == "refused" and "refused to answer" in str(error)
    assert error.reply is not None and error.reply.text == "I cannot help with that."


def test_an_answer_cut_at_the_output_limit_fails_with_the_part_that_came(llm_server: LLMServer, direct: bool) -> None:
    llm_server.script(text("The first half of", finish_reason="length"))
    error = failure(client_for(llm_server, direct=direct))
    assert error.kind == "cut" and "cut off at its output limit" in str(error)
    assert error.reply is not None and error.reply.text == "The first half of"


class EndsWithoutReply:
    """A client from outside hive whose stream stops after opening (hive's own end with a reply or raise)."""

    model = "other/model"

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        yield StreamOpened()


def test_a_stream_that_ends_without_a_reply_fails() -> None:
    counted: list[SpentUsage] = []
    error = failure(EndsWithoutReply(), counted)
    assert error.kind == "no_reply" and str(error) == "the model stream ended without a reply"
    assert error.reply is None and counted == []
