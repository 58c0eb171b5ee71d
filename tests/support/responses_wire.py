"""The scripted server's replies in OpenAI's Responses API format (POST /v1/responses).

A `Completion` becomes the event sequence OpenAI streams: `response.created`, then per output item
(reasoning with its summary, the assistant message, each function call) `response.output_item.added`,
its deltas and `response.output_item.done`, then `response.completed` with usage (or
`response.incomplete` when the finish reason is "length"). Each event is `event: <type>` plus
`data: {...}`; there is no `data: [DONE]`. Not streaming, the same items come as one `response` object.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator, Mapping
from typing import Any

Event = dict[str, Any]


def stream_events(reply: Any, body: Mapping[str, Any], usage: Mapping[str, Any]) -> list[bytes]:
    """The SSE events of `reply` (a `Completion`) streamed as a Responses API reply."""
    response = _response(reply, body)
    events: list[Event] = [
        {"type": "response.created", "response": response},
        {"type": "response.in_progress", "response": response},
    ]
    output: list[Event] = []
    for index, (item, deltas) in enumerate(_items(reply)):
        events.append({"type": "response.output_item.added", "output_index": index, "item": _opened(item)})
        events += [{**delta, "output_index": index, "item_id": item["id"]} for delta in deltas]
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
        output.append(item)
    events.append(_end_event(reply, {**response, "output": output}, usage))
    return [_sse(event, number) for number, event in enumerate(events)]


def response_object(reply: Any, body: Mapping[str, Any], usage: Mapping[str, Any]) -> dict[str, Any]:
    """`reply` as one (not streamed) `response` object."""
    output = [item for item, _ in _items(reply)]
    return _end_event(reply, {**_response(reply, body), "output": output}, usage)["response"]


def error_event(error: Mapping[str, Any], event: str | None) -> bytes:
    """A failure inside the 200 stream: `response.failed` when `event` says so, else an `error` event."""
    if event == "response.failed":
        failed = {"id": _id("resp"), "object": "response", "status": "failed", "error": dict(error)}
        return _sse({"type": "response.failed", "response": failed}, 0)
    fields = {"code": error.get("code"), "message": error.get("message"), "param": error.get("param")}
    return _sse({"type": "error", **fields}, 0)


def responses_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """Chat-completions usage (as the server computes it) in the Responses API's names."""
    prompt, completion = usage["prompt_tokens"], usage["completion_tokens"]
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": usage["prompt_tokens_details"]["cached_tokens"]},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": usage["completion_tokens_details"]["reasoning_tokens"]},
        "total_tokens": prompt + completion,
    }


def _items(reply: Any) -> Iterator[tuple[Event, list[Event]]]:
    """Each output item, finished, with the delta events that stream it."""
    if reply.reasoning:
        yield _reasoning(reply)
    if reply.text:
        yield _message(reply)
    for tool_call in reply.calls:
        yield _function_call(tool_call, reply)


def _reasoning(reply: Any) -> tuple[Event, list[Event]]:
    part = {"summary_index": 0}
    deltas = [{"type": "response.reasoning_summary_part.added", **part, "part": _summary("")}]
    deltas += [
        {"type": "response.reasoning_summary_text.delta", **part, "delta": piece}
        for piece in _pieces(reply.reasoning, reply.chunk_size)
    ]
    deltas.append({"type": "response.reasoning_summary_text.done", **part, "text": reply.reasoning})
    item = {
        "id": _id("rs"),
        "type": "reasoning",
        "summary": [_summary(reply.reasoning)],
        "encrypted_content": "enc_" + secrets.token_hex(16),
    }
    return item, deltas


def _message(reply: Any) -> tuple[Event, list[Event]]:
    part = {"content_index": 0}
    deltas = [{"type": "response.content_part.added", **part, "part": _output_text("")}]
    deltas += [
        {"type": "response.output_text.delta", **part, "delta": piece, "logprobs": []}
        for piece in _pieces(reply.text, reply.chunk_size)
    ]
    deltas.append({"type": "response.output_text.done", **part, "text": reply.text, "logprobs": []})
    deltas.append({"type": "response.content_part.done", **part, "part": _output_text(reply.text)})
    item = {
        "id": _id("msg"),
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [_output_text(reply.text)],
    }
    return item, deltas


def _function_call(tool_call: Any, reply: Any) -> tuple[Event, list[Event]]:
    arguments = tool_call.arguments
    pieces = [arguments] if reply.whole_arguments and arguments else _pieces(arguments, reply.chunk_size)
    deltas = [{"type": "response.function_call_arguments.delta", "delta": piece} for piece in pieces]
    deltas.append({"type": "response.function_call_arguments.done", "arguments": arguments})
    item = {
        "id": _id("fc"),
        "type": "function_call",
        "status": "completed",
        "arguments": arguments,
        "call_id": tool_call.id or "",
        "name": tool_call.name,
    }
    return item, deltas


def _opened(item: Event) -> Event:
    """The item as `response.output_item.added` announces it: nothing generated yet."""
    kind = item["type"]
    if kind == "reasoning":
        return {"id": item["id"], "type": "reasoning", "summary": []}
    if kind == "message":
        return {**item, "status": "in_progress", "content": []}
    return {**item, "status": "in_progress", "arguments": ""}


def _end_event(reply: Any, response: Event, usage: Mapping[str, Any]) -> Event:
    finished = {**response, "usage": responses_usage(usage)}
    if reply.finish_reason == "length":
        finished |= {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
        return {"type": "response.incomplete", "response": finished}
    return {"type": "response.completed", "response": {**finished, "status": "completed"}}


def _response(reply: Any, body: Mapping[str, Any]) -> Event:
    return {
        "id": reply.response_id or _id("resp"),
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "model": reply.model or body.get("model") or "test-model",
        "output": [],
        "usage": None,
        "error": None,
        "incomplete_details": None,
    }


def _summary(text: str) -> Event:
    return {"type": "summary_text", "text": text}


def _output_text(text: str) -> Event:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _sse(event: Event, number: int) -> bytes:
    data = json.dumps({**event, "sequence_number": number}, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def _id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]
