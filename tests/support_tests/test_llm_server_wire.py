"""The scripted model server, driven with raw httpx: the exact statuses, headers and SSE bytes it produces."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest

from tests.support.llm_server import (
    LLMServer,
    Usage,
    auth_error,
    call,
    context_overflow,
    delayed,
    hang,
    insufficient_quota,
    rate_limited,
    raw_sse,
    server_error,
    stream_cut,
    stream_error,
    text,
    tool_calls,
)

CHAT = "/chat/completions"
HTTP = httpx.Client(timeout=5)
"""One client for the module: building an httpx.Client costs tens of milliseconds."""


def ask(server: LLMServer, *, stream: bool = True, include_usage: bool = False, **extra: Any) -> httpx.Response:
    """POST one chat request and read the whole response."""
    body: dict[str, Any] = {"model": "test-model", "messages": [{"role": "user", "content": "hi"}], **extra}
    if stream:
        body["stream"] = True
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    return HTTP.post(server.base_url + CHAT, json=body)


def events(response: httpx.Response) -> list[tuple[str | None, str]]:
    """(event name, data) of every SSE event in the body."""
    parsed = []
    for block in response.text.split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        parsed.append((fields.get("event"), fields["data"]))
    return parsed


def chunks(response: httpx.Response) -> list[dict[str, Any]]:
    """The JSON chunks of an SSE body, [DONE] and error events left out."""
    return [json.loads(data) for name, data in events(response) if data != "[DONE]" and name is None]


def deltas(response: httpx.Response) -> list[dict[str, Any]]:
    return [chunk["choices"][0]["delta"] for chunk in chunks(response) if chunk["choices"]]


def call_fragments(response: httpx.Response) -> list[dict[str, Any]]:
    return [fragment for delta in deltas(response) for fragment in delta.get("tool_calls", [])]


def arguments_by_index(response: httpx.Response) -> dict[int, str]:
    assembled: dict[int, str] = {}
    for fragment in call_fragments(response):
        assembled[fragment["index"]] = assembled.get(fragment["index"], "") + fragment["function"]["arguments"]
    return assembled


# --- text ------------------------------------------------------------------------------------------------------


def test_streamed_text_is_a_role_chunk_small_content_pieces_a_finish_chunk_and_done(llm_server: LLMServer) -> None:
    llm_server.script(text("Hello world", chunk_size=3))
    response = ask(llm_server)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert response.headers["transfer-encoding"] == "chunked"
    assert deltas(response)[0] == {"role": "assistant", "content": "", "refusal": None}
    assert [d["content"] for d in deltas(response)[1:-1]] == ["Hel", "lo ", "wor", "ld"]
    assert chunks(response)[-1]["choices"][0] == {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}
    assert events(response)[-1] == (None, "[DONE]")
    assert {chunk["object"] for chunk in chunks(response)} == {"chat.completion.chunk"}
    assert len({chunk["id"] for chunk in chunks(response)}) == 1


def test_usage_chunk_with_empty_choices_comes_only_when_the_request_asks_for_it(llm_server: LLMServer) -> None:
    llm_server.script(text("Hi"), text("Hi"))
    without = ask(llm_server)
    with_usage = ask(llm_server, include_usage=True)
    assert all("usage" not in chunk for chunk in chunks(without))
    last = chunks(with_usage)[-1]
    assert last["choices"] == []
    assert last["usage"]["total_tokens"] == last["usage"]["prompt_tokens"] + last["usage"]["completion_tokens"]


def test_reasoning_is_streamed_as_reasoning_content_before_the_text(llm_server: LLMServer) -> None:
    llm_server.script(text("Yes", reasoning="Let me think", chunk_size=100))
    assert deltas(ask(llm_server))[1:3] == [{"reasoning_content": "Let me think"}, {"content": "Yes"}]


def test_scripted_usage_numbers_are_reported_as_given(llm_server: LLMServer) -> None:
    usage = Usage(prompt_tokens=1420, completion_tokens=9, cached_tokens=1280, reasoning_tokens=3)
    llm_server.script(text("Hi", usage=usage))
    reported = chunks(ask(llm_server, include_usage=True))[-1]["usage"]
    assert (reported["prompt_tokens"], reported["completion_tokens"], reported["total_tokens"]) == (1420, 9, 1429)
    assert reported["prompt_tokens_details"]["cached_tokens"] == 1280
    assert reported["completion_tokens_details"]["reasoning_tokens"] == 3


def test_default_usage_grows_with_the_request_and_the_reply(llm_server: LLMServer) -> None:
    llm_server.script(text("short"), text("a much longer answer " * 10))
    small = ask(llm_server, stream=False).json()["usage"]
    big = ask(llm_server, stream=False, messages=[{"role": "user", "content": "x" * 400}]).json()["usage"]
    assert big["prompt_tokens"] > small["prompt_tokens"] > 0
    assert big["completion_tokens"] > small["completion_tokens"] > 0


def test_non_streaming_text_is_one_chat_completion_json_with_usage(llm_server: LLMServer) -> None:
    llm_server.script(text("Hello", reasoning="hm"))
    response = ask(llm_server, stream=False)
    body = response.json()
    assert int(response.headers["content-length"]) == len(response.content)
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"]["content"] == "Hello"
    assert body["choices"][0]["message"]["reasoning_content"] == "hm"
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"]["prompt_tokens"] > 0


def test_reply_names_the_requested_model_unless_told_otherwise(llm_server: LLMServer) -> None:
    llm_server.script(text("a"), text("b", model="gpt-4o-2024-08-06"))
    assert ask(llm_server, stream=False, model="my-model").json()["model"] == "my-model"
    assert ask(llm_server, stream=False).json()["model"] == "gpt-4o-2024-08-06"


# --- tool calls ------------------------------------------------------------------------------------------------


def test_tool_call_sends_id_type_and_name_once_then_argument_fragments(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("read_file", {"path": "a.txt"}, id="call_1")))
    response = ask(llm_server)
    first, *rest = call_fragments(response)
    assert first == {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": ""}}
    assert deltas(response)[0]["role"] == "assistant"
    assert len(rest) > 1
    assert all(set(fragment) == {"index", "function"} for fragment in rest)
    assert json.loads(arguments_by_index(response)[0]) == {"path": "a.txt"}
    assert chunks(response)[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_parallel_tool_calls_get_consecutive_indexes_after_optional_text(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("ls"), call("read_file", {"path": "b"}), text="Looking."))
    response = ask(llm_server)
    assert "".join(d.get("content") or "" for d in deltas(response)) == "Looking."
    heads = [fragment for fragment in call_fragments(response) if "id" in fragment]
    assert [(h["index"], h["function"]["name"]) for h in heads] == [(0, "ls"), (1, "read_file")]
    assert all(h["id"].startswith("call_") for h in heads)
    assert arguments_by_index(response) == {0: "{}", 1: '{"path":"b"}'}


def test_an_empty_tool_call_id_is_sent_as_an_empty_string(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("ls", id="")))
    assert call_fragments(ask(llm_server))[0]["id"] == ""


def test_a_tool_call_id_of_none_is_left_out_of_the_wire_format(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("ls", id=None)), tool_calls(call("ls", id=None)))
    assert "id" not in call_fragments(ask(llm_server))[0]
    assert "id" not in ask(llm_server, stream=False).json()["choices"][0]["message"]["tool_calls"][0]


def test_repeat_name_puts_id_and_name_on_every_fragment(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("grep", {"pattern": "x"}, id="0"), repeat_name=True))
    fragments = call_fragments(ask(llm_server))
    assert len(fragments) > 2
    assert all((f["id"], f["function"]["name"]) == ("0", "grep") for f in fragments)


def test_whole_arguments_arrive_in_one_fragment_after_the_head(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("grep", {"pattern": "a long pattern"}), whole_arguments=True))
    fragments = call_fragments(ask(llm_server))
    assert [f["function"]["arguments"] for f in fragments] == ["", '{"pattern":"a long pattern"}']


def test_empty_arguments_text_sends_only_the_head_fragment(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("ls", "")))
    assert arguments_by_index(ask(llm_server)) == {0: ""}


def test_malformed_arguments_text_is_sent_verbatim(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("write", '{"path": "a.txt", "content": "unterminated')))
    assert arguments_by_index(ask(llm_server)) == {0: '{"path": "a.txt", "content": "unterminated'}


def test_finish_reason_none_ends_the_stream_with_done_and_no_finish_chunk(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("ls"), finish_reason=None), text("x", finish_reason=None))
    for response in (ask(llm_server), ask(llm_server)):
        assert all(chunk["choices"][0]["finish_reason"] is None for chunk in chunks(response))
        assert events(response)[-1] == (None, "[DONE]")


def test_non_streaming_tool_calls_carry_arguments_as_json_text(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("read_file", {"path": "a.txt"}, id="call_9"), call("ls")))
    choice = ask(llm_server, stream=False).json()["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    assert choice["message"]["tool_calls"][0] == {
        "id": "call_9",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path":"a.txt"}'},
    }
    assert choice["message"]["tool_calls"][1]["function"]["arguments"] == "{}"


def test_a_callable_reply_is_built_from_the_request_body(llm_server: LLMServer) -> None:
    llm_server.script(lambda request: text(f"you said {request['messages'][-1]['content']}"))
    assert ask(llm_server, stream=False).json()["choices"][0]["message"]["content"] == "you said hi"


def test_a_callable_reply_that_raises_answers_500_and_lands_in_errors(llm_server: LLMServer) -> None:
    def broken(request: dict[str, Any]) -> Any:
        raise KeyError("nope")

    llm_server.script(broken)
    response = ask(llm_server)
    assert response.status_code == 500
    assert "KeyError" in response.json()["error"]["message"]
    assert isinstance(llm_server.errors[0], KeyError)


def test_raw_sse_sends_hand_written_events_verbatim(llm_server: LLMServer) -> None:
    llm_server.script(raw_sse({"choices": [], "usage": {"prompt_tokens": 1}}, ": keep-alive comment"))
    expected = 'data: {"choices":[],"usage":{"prompt_tokens":1}}\n\n: keep-alive comment\n\ndata: [DONE]\n\n'
    assert ask(llm_server).text == expected


# --- failures --------------------------------------------------------------------------------------------------


def test_rate_limit_is_a_429_with_retry_after_seconds_and_openai_body(llm_server: LLMServer) -> None:
    llm_server.script(rate_limited(retry_after=7), rate_limited(retry_after=None))
    response = ask(llm_server)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "7"
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("tokens", "rate_limit_exceeded")
    assert "Please try again in 7s" in error["message"]
    assert "retry-after" not in ask(llm_server).headers


def test_insufficient_quota_is_a_429_that_says_so(llm_server: LLMServer) -> None:
    llm_server.script(insufficient_quota())
    response = ask(llm_server)
    assert (response.status_code, response.json()["error"]["code"]) == (429, "insufficient_quota")


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_carry_an_openai_server_error_body(llm_server: LLMServer, status: int) -> None:
    llm_server.script(server_error(status))
    response = ask(llm_server)
    assert response.status_code == status
    assert response.json()["error"]["type"] == "server_error"


@pytest.mark.parametrize(
    ("variant", "needle"),
    [
        ("openai", '"code": "context_length_exceeded"'),
        ("openai_new", "exceeds the context window of this model"),
        ("llama_cpp", '"type": "exceed_context_size_error"'),
        ("vllm", "maximum context length is 8192 tokens"),
    ],
)
def test_context_overflow_is_a_400_in_each_servers_wording(llm_server: LLMServer, variant: Any, needle: str) -> None:
    llm_server.script(context_overflow(variant))
    response = ask(llm_server)
    assert response.status_code == 400
    assert needle in response.text


def test_auth_error_is_a_401_invalid_api_key(llm_server: LLMServer) -> None:
    llm_server.script(auth_error())
    response = ask(llm_server, stream=False)
    assert (response.status_code, response.json()["error"]["code"]) == (401, "invalid_api_key")


def test_a_cut_stream_delivers_some_chunks_then_drops_the_connection(llm_server: LLMServer) -> None:
    llm_server.script(stream_cut("one two three four five", after=3))
    received: list[str] = []
    request = HTTP.build_request("POST", llm_server.base_url + CHAT, json={"stream": True, "messages": []})
    response = HTTP.send(request, stream=True)
    with pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"):
        received.extend(response.iter_lines())
    response.close()
    data = [line for line in received if line.startswith("data: ")]
    assert len(data) == 3
    assert "[DONE]" not in received


def test_a_cut_non_streaming_reply_sends_half_the_announced_body(llm_server: LLMServer) -> None:
    llm_server.script(stream_cut())
    with pytest.raises(httpx.RemoteProtocolError):
        ask(llm_server, stream=False)


def test_in_stream_error_event_follows_a_few_chunks_of_a_200_stream(llm_server: LLMServer) -> None:
    error = {"message": "Tool call validation failed", "type": "invalid_request_error", "code": "tool_use_failed"}
    llm_server.script(stream_error(error, after=2))
    response = ask(llm_server)
    assert response.status_code == 200
    assert [name for name, _ in events(response)] == [None, None, "error"]
    assert json.loads(events(response)[-1][1]) == {"error": error}


def test_in_stream_error_can_be_a_bare_data_line_followed_by_done(llm_server: LLMServer) -> None:
    llm_server.script(stream_error(after=1, event=None, done=True))
    parsed = events(ask(llm_server))
    assert [name for name, _ in parsed] == [None, None, None]
    assert "error" in json.loads(parsed[1][1])
    assert parsed[-1][1] == "[DONE]"


def test_non_streaming_request_gets_the_in_stream_error_as_a_500(llm_server: LLMServer) -> None:
    llm_server.script(stream_error())
    assert ask(llm_server, stream=False).status_code == 500


def test_a_hang_never_answers_so_the_client_times_out(llm_server: LLMServer) -> None:
    llm_server.script(hang())
    with pytest.raises(httpx.ReadTimeout):
        HTTP.post(llm_server.base_url + CHAT, json={"messages": []}, timeout=0.3)
    assert len(llm_server.requests) == 1  # the request arrived: no answer is what timed out


def test_a_timed_hang_drops_the_connection_without_a_response(llm_server: LLMServer) -> None:
    llm_server.script(hang(0.1))
    with pytest.raises(httpx.RemoteProtocolError, match="without sending"):
        ask(llm_server)


def test_closing_the_server_releases_a_client_stuck_on_a_hang() -> None:
    server = LLMServer(hang())
    outcome: list[BaseException] = []

    def client() -> None:
        try:
            HTTP.post(server.base_url + CHAT, json={"messages": []}, timeout=60)
        except httpx.HTTPError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=client)
    thread.start()
    deadline = time.monotonic() + 30  # a failure guard only
    while not server.requests:  # the client is stuck once its request is at the server
        assert time.monotonic() < deadline, "the request never arrived"
        time.sleep(0.02)
    server.close()
    thread.join(timeout=60)
    # Released by the close: left alone, the client would have ended with a ReadTimeout after 60 s.
    assert [type(exc) for exc in outcome] == [httpx.RemoteProtocolError]


def test_a_client_hanging_up_mid_stream_leaves_the_server_healthy(llm_server: LLMServer) -> None:
    llm_server.script(text("x" * 200, chunk_size=1, chunk_delay=0.002), text("next"))
    with HTTP.stream("POST", llm_server.base_url + CHAT, json={"stream": True, "messages": []}) as response:
        next(response.iter_lines())
    assert ask(llm_server, stream=False).json()["choices"][0]["message"]["content"] == "next"
    assert llm_server.errors == []


def test_delay_and_chunk_delay_space_out_the_reply(llm_server: LLMServer) -> None:
    llm_server.script(delayed(text("abcdef", chunk_size=2, chunk_delay=0.05), 0.1))
    arrivals: list[float] = []
    started = time.monotonic()
    with HTTP.stream("POST", llm_server.base_url + CHAT, json={"stream": True, "messages": []}) as response:
        arrivals.extend(time.monotonic() - started for line in response.iter_lines() if line.startswith("data:"))
    # The server waits before each event, so none can arrive before its waits have passed, however slow the
    # machine; gaps between arrivals are not judged (a client that reads late gets several events at once).
    assert len(arrivals) >= 3
    assert all(
        arrival >= 0.1 + 0.05 * number - 0.001 for number, arrival in enumerate(arrivals)
    )  # 1 ms: timer rounding


def test_an_empty_script_answers_500_saying_no_scripted_reply_left(llm_server: LLMServer) -> None:
    response = ask(llm_server)
    assert response.status_code == 500
    assert response.json()["error"]["message"] == "llm_server: no scripted reply left"


def test_invalid_json_gets_a_400_without_using_a_reply(llm_server: LLMServer) -> None:
    llm_server.script(text("kept"))
    response = HTTP.post(llm_server.base_url + CHAT, content=b"{not json")
    assert response.status_code == 400
    assert llm_server.remaining == 1


# --- requests, routes, connections -----------------------------------------------------------------------------


def test_every_request_is_recorded_with_its_json_body_and_headers(llm_server: LLMServer) -> None:
    llm_server.script(text("ok"))
    tools = [{"type": "function", "function": {"name": "ls", "parameters": {"type": "object"}}}]
    ask(llm_server, include_usage=True, tools=tools)
    recorded = llm_server.last_request
    assert (recorded.method, recorded.path) == ("POST", "/v1/chat/completions")
    assert recorded.json["tools"] == tools
    assert recorded.json["stream_options"] == {"include_usage": True}
    assert recorded.messages == [{"role": "user", "content": "hi"}]
    assert recorded.headers["content-type"] == "application/json"


def test_the_unversioned_chat_path_is_served_too(llm_server: LLMServer) -> None:
    llm_server.script(text("ok"))
    response = HTTP.post(f"{llm_server.url}/chat/completions", json={"messages": []})
    assert response.json()["choices"][0]["message"]["content"] == "ok"


def test_models_endpoint_lists_the_configured_model() -> None:
    with LLMServer(model="local-llama") as server:
        listed = HTTP.get(f"{server.base_url}/models").json()
    assert [model["id"] for model in listed["data"]] == ["local-llama"]


def test_unknown_paths_get_a_404(llm_server: LLMServer) -> None:
    assert HTTP.post(f"{llm_server.base_url}/images/generations", json={}).status_code == 404


def test_embeddings_are_one_normalised_vector_per_text(llm_server: LLMServer) -> None:
    body = HTTP.post(f"{llm_server.base_url}/embeddings", json={"model": "e", "input": ["ab", "b"]}).json()
    vectors = [item["embedding"] for item in body["data"]]
    assert [round(sum(x * x for x in v), 6) for v in vectors] == [1.0, 1.0]
    assert vectors[1][1] == 1.0 and vectors[0][0] == vectors[0][1] > 0


def test_one_keep_alive_connection_carries_streams_json_and_errors_in_a_row(llm_server: LLMServer) -> None:
    llm_server.script(text("a"), tool_calls(call("ls")), rate_limited(), text("b"), stream_error(), text("c"))
    body = {"messages": [], "stream": True}
    with httpx.Client(base_url=llm_server.base_url, timeout=5) as client:
        statuses = [client.post(CHAT, json={**body, "stream": n % 2 == 0}).status_code for n in range(6)]
    assert statuses == [200, 200, 429, 200, 200, 200]
    assert len({request.client_port for request in llm_server.requests}) == 1


def test_script_chains_and_remaining_counts_unused_replies() -> None:
    with LLMServer(text("a")) as server:
        assert server.script(text("b"), text("c")) is server
        ask(server)
        assert server.remaining == 2
        assert len(server.chat_requests) == 1


def test_the_server_also_listens_on_ipv6_loopback() -> None:
    with LLMServer(text("v6"), host="::1") as server:
        assert server.base_url.startswith("http://[::1]:")
        response = HTTP.post(server.base_url + CHAT, json={"messages": []})
    assert response.json()["choices"][0]["message"]["content"] == "v6"
