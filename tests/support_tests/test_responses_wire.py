"""The scripted model server's Responses API route, driven with raw httpx: the exact events it streams."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.support.llm_server import LLMServer, Usage, call, stream_cut, stream_error, text, tool_calls

HTTP = httpx.Client(timeout=5)


def ask(server: LLMServer, *, stream: bool = True) -> httpx.Response:
    body = {"model": "test-model", "input": [{"role": "user", "content": "hi"}], "stream": stream}
    return HTTP.post(server.base_url + "/responses", json=body)


def events(response: httpx.Response) -> list[dict[str, Any]]:
    """The events of an SSE body, each checked to carry its type on the ``event:`` line too."""
    parsed = []
    for block in response.text.split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        event = json.loads(fields["data"])
        assert fields["event"] == event["type"]
        parsed.append(event)
    return parsed


def test_text_streams_as_created_item_deltas_and_completed_without_done(llm_server: LLMServer) -> None:
    llm_server.script(text("Hello!", chunk_size=2, usage=Usage(prompt_tokens=7, completion_tokens=2, cached_tokens=3)))
    response = ask(llm_server)
    sent = events(response)
    assert response.headers["content-type"] == "text/event-stream" and "[DONE]" not in response.text
    assert [event["type"] for event in sent] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        *["response.output_text.delta"] * 3,
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [event["sequence_number"] for event in sent] == list(range(len(sent)))
    assert [event["delta"] for event in sent if event["type"].endswith("text.delta")] == ["He", "ll", "o!"]
    completed = sent[-1]["response"]
    assert completed["status"] == "completed" and completed["output"][0]["content"][0]["text"] == "Hello!"
    assert completed["usage"] == {
        "input_tokens": 7,
        "input_tokens_details": {"cached_tokens": 3},
        "output_tokens": 2,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 9,
    }


def test_function_calls_are_items_with_call_ids_and_argument_fragments(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("ls", {"path": "."}, id="call_1"), call("pwd", id="call_2"), chunk_size=5))
    sent = events(ask(llm_server))
    added = [event["item"] for event in sent if event["type"] == "response.output_item.added"]
    assert [(item["call_id"], item["name"], item["arguments"]) for item in added] == [
        ("call_1", "ls", ""),
        ("call_2", "pwd", ""),
    ]
    fragments = [event for event in sent if event["type"] == "response.function_call_arguments.delta"]
    assert "".join(f["delta"] for f in fragments if f["output_index"] == 0) == '{"path":"."}'
    assert len([f for f in fragments if f["output_index"] == 0]) == 3


def test_reasoning_is_a_summary_item_with_encrypted_content_first(llm_server: LLMServer) -> None:
    llm_server.script(text("4", reasoning="2 and 2"))
    sent = events(ask(llm_server))
    first = next(event["item"] for event in sent if event["type"] == "response.output_item.done")
    assert first["type"] == "reasoning" and first["summary"] == [{"type": "summary_text", "text": "2 and 2"}]
    assert first["encrypted_content"].startswith("enc_")


def test_length_is_an_incomplete_response(llm_server: LLMServer) -> None:
    llm_server.script(text("Trunc", finish_reason="length"))
    last = events(ask(llm_server))[-1]
    assert last["type"] == "response.incomplete"
    assert last["response"]["incomplete_details"] == {"reason": "max_output_tokens"}


def test_failures_inside_the_stream_are_error_events_or_failed_responses(llm_server: LLMServer) -> None:
    error = {"code": "server_error", "message": "boom"}
    llm_server.script(stream_error(error, after=3), stream_error(error, after=3, event="response.failed"))
    plain, failed = events(ask(llm_server))[-1], events(ask(llm_server))[-1]
    assert (plain["type"], plain["code"], plain["message"]) == ("error", "server_error", "boom")
    assert failed["type"] == "response.failed" and failed["response"]["error"] == error


def test_a_cut_stream_stops_before_the_response_completes(llm_server: LLMServer) -> None:
    llm_server.script(stream_cut(after=4))
    with (
        httpx.Client(timeout=5) as client,
        client.stream("POST", llm_server.base_url + "/responses", json={"stream": True}) as response,
    ):
        received = b""
        try:
            for piece in response.iter_bytes():
                received += piece
        except httpx.RemoteProtocolError:
            pass
    assert received.count(b"\n\n") == 4 and b"response.completed" not in received


def test_a_whole_reply_is_one_response_object(llm_server: LLMServer) -> None:
    llm_server.script(tool_calls(call("ls", id="call_1"), text="Hm."))
    body = ask(llm_server, stream=False).json()
    assert body["object"] == "response" and body["status"] == "completed"
    assert [item["type"] for item in body["output"]] == ["message", "function_call"]
    assert llm_server.responses_requests and not llm_server.chat_requests
