"""hive's own Responses API client against the scripted server over real HTTP: routing, the request, the replies.

The same scripted replies go through the chat-completions client too, and both must yield the same
stream items, replies and usage; failures must land in the same categories.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.errors import ContextOverflowError, ProviderError
from engine.model.client_settings import ModelSettings
from engine.model.failures import RetryPolicy
from engine.model.openai_compat import OpenAICompatClient
from engine.model.openai_responses import OpenAIResponsesClient
from engine.model.pricing import model_entry
from engine.model.providers import openai_compatible_endpoint, responses_endpoint, speaks_responses
from engine.model.responses_request import REASONING_ITEMS, request_body
from engine.model.types import (
    CallOptions,
    ModelClient,
    ModelReply,
    ModelRequest,
    StreamItem,
    StreamReasoning,
    StreamRetry,
)
from tests.support.llm_server import (
    LLMServer,
    Scripted,
    Usage,
    call,
    context_overflow,
    rate_limited,
    raw,
    raw_sse,
    server_error,
    stream_cut,
    stream_error,
    text,
    tool_calls,
)

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05, retry_after_cap_s=0.05)
HELLO = ModelRequest(messages=({"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}))


def responses_client(server: LLMServer, *, streaming: bool = True) -> OpenAIResponsesClient:
    settings = ModelSettings(
        model="openai/responses/test-model",
        api_base=server.base_url,
        api_key="sk-test",
        retry=FAST_RETRY,
        streaming=streaming,
    )
    endpoint = responses_endpoint(settings)
    assert endpoint is not None
    return OpenAIResponsesClient(settings, endpoint)


def chat_client(server: LLMServer) -> OpenAICompatClient:
    settings = ModelSettings(model="openai/test-model", api_base=server.base_url, api_key="sk-test", retry=FAST_RETRY)
    endpoint = openai_compatible_endpoint(settings)
    assert endpoint is not None
    return OpenAICompatClient(settings, endpoint)


def collect(client: ModelClient, request: ModelRequest = HELLO) -> list[StreamItem]:
    async def go() -> list[StreamItem]:
        return [item async for item in client.stream(request)]

    return asyncio.run(go())


def failure(client: ModelClient) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        collect(client)
    return caught.value


def both(server: LLMServer, reply: Scripted) -> tuple[list[StreamItem], list[StreamItem]]:
    """The items of ``reply`` through the Responses client, then through the chat-completions client."""
    server.script(reply)
    via_responses = collect(responses_client(server))
    server.script(reply)
    return via_responses, collect(chat_client(server))


def last_reply(items: list[StreamItem]) -> ModelReply:
    reply = items[-1]
    assert isinstance(reply, ModelReply)
    return reply


# --- routing -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["openai/responses/gpt-4.1", "openai/gpt-5-codex", "openai/o3-pro"])
def test_responses_models_take_the_responses_client(model: str) -> None:
    settings = ModelSettings(model=model)
    endpoint = responses_endpoint(settings)
    assert speaks_responses(model) and openai_compatible_endpoint(settings) is None
    assert endpoint is not None and endpoint.base_url == "https://api.openai.com/v1"
    assert endpoint.model_name == model.rsplit("/", 1)[-1] and endpoint.priced


@pytest.mark.parametrize("model", ["openai/gpt-4o", "openai/test-model", "openrouter/openai/gpt-5-codex", "gpt-5"])
def test_chat_models_do_not(model: str) -> None:
    assert not speaks_responses(model) and responses_endpoint(ModelSettings(model=model)) is None


def test_litellm_can_be_forced_for_responses_models(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = ModelSettings(model="openai/gpt-5-codex")
    assert responses_endpoint(settings, force_litellm=True) is None
    monkeypatch.setenv("HIVE_PROVIDER_CLIENT", "litellm")
    assert responses_endpoint(settings) is None


def test_the_responses_prefix_is_priced_as_the_model_it_names() -> None:
    assert model_entry("openai/responses/gpt-5-codex") is model_entry("gpt-5-codex") is not None


# --- the request -------------------------------------------------------------------------------------------------


def test_the_request_carries_instructions_input_items_and_flat_tools() -> None:
    tool_call = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": '{"path":"."}'}}
    messages = (
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": "Looking.", "tool_calls": [tool_call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
    )
    tool = {"type": "function", "function": {"name": "ls", "description": "List.", "parameters": {"type": "object"}}}
    options = CallOptions(max_tokens=50, tool_choice="ls", parallel_tool_calls=False)
    body = request_body(
        ModelRequest(messages=messages, tools=(tool,), options=options),
        model="openai/responses/x",
        model_name="x",
        streaming=True,
    )
    assert body["instructions"] == "Be brief." and (body["stream"], body["store"]) == (True, False)
    assert body["input"] == [
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": "Looking."},
        {"type": "function_call", "call_id": "call_1", "name": "ls", "arguments": '{"path":"."}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"},
    ]
    assert body["tools"] == [
        {"type": "function", "name": "ls", "parameters": {"type": "object"}, "strict": False, "description": "List."}
    ]
    assert body["tool_choice"] == {"type": "function", "name": "ls"} and body["parallel_tool_calls"] is False
    assert body["max_output_tokens"] == 50 and "reasoning" not in body


def test_a_reasoning_model_asks_for_summaries_and_its_encrypted_reasoning() -> None:
    request = ModelRequest(messages=({"role": "user", "content": "x"},), options=CallOptions(reasoning_effort="low"))
    body = request_body(request, model="openai/gpt-5-codex", model_name="gpt-5-codex", streaming=True)
    assert body["reasoning"] == {"summary": "auto", "effort": "low"}
    assert body["include"] == ["reasoning.encrypted_content"]
    plain = request_body(HELLO, model="openai/gpt-5-codex", model_name="gpt-5-codex", streaming=True)
    assert plain["reasoning"] == {"summary": "auto"}


# --- replies, the same as the chat-completions client's ----------------------------------------------------------


def test_text_streams_as_the_chat_client_streams_it(llm_server: LLMServer) -> None:
    usage = Usage(prompt_tokens=30, completion_tokens=4, cached_tokens=10, reasoning_tokens=0)
    scripted = text("Hello there, friend.", chunk_size=3, usage=usage, response_id="resp_hello")
    via_responses, via_chat = both(llm_server, scripted)
    assert via_responses == via_chat
    reply = last_reply(via_responses)
    assert (reply.text, reply.finish_reason, reply.model) == ("Hello there, friend.", "stop", "test-model")
    assert reply.response_id == "resp_hello"  # the id the wire gave, through both clients
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (30, 4)
    assert (reply.usage.cached_read_tokens, reply.usage.reasoning_tokens) == (10, 0)
    sent = llm_server.responses_requests[0]
    assert sent.path == "/v1/responses" and sent.headers["authorization"] == "Bearer sk-test"
    assert sent.json["instructions"] == "Be brief." and sent.json["input"] == [{"role": "user", "content": "hi"}]


def test_fragmented_parallel_tool_calls_are_assembled_with_their_call_ids(llm_server: LLMServer) -> None:
    calls = (call("read_file", {"path": "src/main.py", "limit": 20}, id="call_a"), call("list_directory", "", id="b"))
    usage = Usage(prompt_tokens=50, completion_tokens=20)
    scripted = tool_calls(*calls, text="Let me look.", chunk_size=2, usage=usage, response_id="resp_calls")
    via_responses, via_chat = both(llm_server, scripted)
    assert via_responses == via_chat
    reply = last_reply(via_responses)
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_a", "read_file", {"path": "src/main.py", "limit": 20}),
        ("b", "list_directory", {}),
    ]
    assert (reply.text, reply.finish_reason) == ("Let me look.", "tool_calls")


def test_a_reasoning_summary_streams_as_reasoning_and_goes_back_with_the_next_turn(llm_server: LLMServer) -> None:
    llm_server.script(text("42.", reasoning="Six times seven.", usage=Usage(reasoning_tokens=7)), text("ok"))
    items = collect(responses_client(llm_server))
    reply = last_reply(items)
    assert "".join(item.text for item in items if isinstance(item, StreamReasoning)) == "Six times seven."
    assert (reply.reasoning, reply.text, reply.usage.reasoning_tokens) == ("Six times seven.", "42.", 7)
    returned = dict(reply.provider_fields)[REASONING_ITEMS]
    assert returned[0]["type"] == "reasoning" and returned[0]["encrypted_content"].startswith("enc_")
    follow_up = ModelRequest(messages=(*HELLO.messages, reply.to_message(), {"role": "user", "content": "why?"}))
    collect(responses_client(llm_server), follow_up)
    sent = llm_server.responses_requests[1].json["input"]
    assert sent[1] == returned[0] and sent[2] == {"role": "assistant", "content": "42."}


def test_a_whole_reply_reads_as_the_streamed_one(llm_server: LLMServer) -> None:
    scripted = tool_calls(
        call("ls", {"path": "."}, id="call_1"), text="Hm.", usage=Usage(prompt_tokens=9), response_id="resp_whole"
    )
    llm_server.script(scripted, scripted)
    streamed = last_reply(collect(responses_client(llm_server)))
    whole = last_reply(collect(responses_client(llm_server, streaming=False)))
    assert whole == streamed and llm_server.responses_requests[1].json["stream"] is False
    assert whole.response_id == "resp_whole"


def test_a_server_that_sends_only_finished_items_gives_the_same_reply(llm_server: LLMServer) -> None:
    function_call = {"type": "function_call", "call_id": "call_9", "name": "ls", "arguments": '{"path":"src"}'}
    message = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Listing."}]}
    usage = {"input_tokens": 12, "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0}}
    llm_server.script(
        raw_sse(
            "event: response.created\ndata: " + json.dumps({"type": "response.created", "response": {"model": "m-1"}}),
            {"type": "response.output_item.done", "output_index": 0, "item": message},
            {"type": "response.output_item.done", "output_index": 1, "item": function_call},
            {"type": "response.completed", "response": {"status": "completed", "usage": usage}},
            done=False,
        )
    )
    reply = last_reply(collect(responses_client(llm_server)))
    assert (reply.text, reply.finish_reason, reply.model) == ("Listing.", "tool_calls", "m-1")
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("call_9", "ls", {"path": "src"})]
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.cached_read_tokens) == (12, 3, None)


def test_an_incomplete_response_finishes_with_length(llm_server: LLMServer) -> None:
    llm_server.script(text("Cut by the token lim", finish_reason="length"))
    reply = last_reply(collect(responses_client(llm_server)))
    assert (reply.text, reply.finish_reason) == ("Cut by the token lim", "length")


# --- failures ----------------------------------------------------------------------------------------------------


def test_a_rate_limit_waits_as_retry_after_says_then_succeeds(llm_server: LLMServer) -> None:
    llm_server.script(rate_limited(0.01), text("Finally."))
    items = collect(responses_client(llm_server))
    retry = items[0]
    assert isinstance(retry, StreamRetry) and (retry.category, retry.delay_s) == ("rate_limit", 0.01)
    assert last_reply(items).text == "Finally." and len(llm_server.responses_requests) == 2


def test_server_errors_are_retried_and_then_reported_as_transient(llm_server: LLMServer) -> None:
    llm_server.script(server_error(500), server_error(503), server_error(502))
    error = failure(responses_client(llm_server))
    assert (error.category, error.status_code) == ("transient", 502)
    assert len(llm_server.responses_requests) == 3


def test_context_overflow_is_the_overflow_category_and_never_retried(llm_server: LLMServer) -> None:
    llm_server.script(context_overflow("openai_new"))
    error = failure(responses_client(llm_server))
    assert isinstance(error, ContextOverflowError) and len(llm_server.responses_requests) == 1


def test_a_failed_response_for_overflow_inside_the_stream_is_overflow_too(llm_server: LLMServer) -> None:
    overflow = {"code": "context_length_exceeded", "message": "Your input exceeds the context window of this model."}
    llm_server.script(stream_error(overflow, after=2, event="response.failed"))
    assert isinstance(failure(responses_client(llm_server)), ContextOverflowError)


def test_a_cut_stream_is_a_broken_reply_not_a_short_answer(llm_server: LLMServer) -> None:
    llm_server.script(stream_cut("This answer is cut off before it ends", after=6))
    error = failure(responses_client(llm_server))
    assert (error.category, error.after_output) == ("transient", True)
    assert "broke off after" in str(error) and "/v1/responses" in str(error)
    assert len(llm_server.responses_requests) == 1


def test_an_error_event_after_output_fails_in_the_servers_words(llm_server: LLMServer) -> None:
    error_body = {"code": "server_error", "message": "The server had an error mid-stream."}
    llm_server.script(stream_error(error_body, after=7, content="Partial answer here"))
    error = failure(responses_client(llm_server))
    assert (error.category, error.after_output) == ("transient", True)
    assert str(error).endswith("The server had an error mid-stream.")


def test_an_html_page_is_not_a_reply(llm_server: LLMServer) -> None:
    llm_server.script(raw(b"<html>gateway</html>", content_type="text/html"))
    error = failure(responses_client(llm_server))
    assert error.category == "bad_response" and "<html>gateway</html>" in str(error)
