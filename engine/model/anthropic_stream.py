"""Read Anthropic ``/v1/messages`` events as the chat-completion chunks ``StreamAssembler`` consumes.

Text blocks become ``content`` deltas, ``tool_use`` blocks become tool-call fragments keyed by the
block's index, thinking becomes ``reasoning_content`` plus one whole signed block in
``thinking_blocks`` when the block ends, and a ``redacted_thinking`` block passes through as is.
Usage is reported the way litellm reports it: ``prompt_tokens`` counts uncached input, cache writes
and cache reads; a buffered reply is read by replaying it as the events of a stream.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "length",
    "compaction": "length",
    "model_context_window_exceeded": "length",
}
"""Anthropic's stop reasons as OpenAI finish reasons (litellm's mapping)."""

Chunk = dict[str, Any]


class AnthropicEvents:
    """Turns the events of one reply, in order, into chat-completion chunks."""

    def __init__(self) -> None:
        self._usage: dict[str, Any] = {}
        self._thinking: dict[int, dict[str, str]] = {}

    def chunk(self, event: dict[str, Any]) -> Chunk | None:
        """The chunk for one event, or None for events that carry nothing (ping, stops)."""
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            self._take_usage(message.get("usage"))
            return {"id": message.get("id"), "model": message.get("model"), "choices": [], "usage": self.usage()}
        if kind == "content_block_start":
            return self._block_start(_index(event), event.get("content_block") or {})
        if kind == "content_block_delta":
            return self._block_delta(_index(event), event.get("delta") or {})
        if kind == "content_block_stop":
            block = self._thinking.pop(_index(event), None)
            return _delta({"thinking_blocks": [{"type": "thinking", **block}]}) if block is not None else None
        if kind == "message_delta":
            self._take_usage(event.get("usage"))
            stop = (event.get("delta") or {}).get("stop_reason")
            finish = FINISH_REASONS.get(stop, "stop") if stop else None
            return {"choices": [{"delta": {}, "finish_reason": finish}], "usage": self.usage()}
        return None

    def _block_start(self, index: int, block: dict[str, Any]) -> Chunk | None:
        kind = block.get("type")
        if kind == "text":
            return _delta({"content": block.get("text") or None})
        if kind == "tool_use":
            fragment = {"index": index, "id": block.get("id"), "function": {"name": block.get("name"), "arguments": ""}}
            return _delta({"tool_calls": [fragment]})
        if kind == "thinking":
            text = block.get("thinking") or ""
            self._thinking[index] = {"thinking": text, "signature": block.get("signature") or ""}
            return _delta({"reasoning_content": text or None})
        if kind == "redacted_thinking":
            return _delta({"thinking_blocks": [{"type": "redacted_thinking", "data": block.get("data")}]})
        return None

    def _block_delta(self, index: int, delta: dict[str, Any]) -> Chunk | None:
        kind = delta.get("type")
        if kind == "text_delta":
            return _delta({"content": delta.get("text") or None})
        if kind == "input_json_delta":
            fragment = {"index": index, "function": {"arguments": delta.get("partial_json") or ""}}
            return _delta({"tool_calls": [fragment]})
        block = self._thinking.get(index)
        if kind == "thinking_delta" and block is not None:
            text = delta.get("thinking") or ""
            block["thinking"] += text
            return _delta({"reasoning_content": text or None})
        if kind == "signature_delta" and block is not None:
            block["signature"] += delta.get("signature") or ""
        return None

    def _take_usage(self, usage: Any) -> None:
        """Later counts replace earlier ones (``message_delta`` repeats, never adds)."""
        if isinstance(usage, dict):
            self._usage.update({name: value for name, value in usage.items() if value is not None})

    def usage(self) -> dict[str, Any] | None:
        """The usage so far in OpenAI's shape, as litellm reports Anthropic's."""
        return openai_usage(self._usage) if self._usage else None


def openai_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """Anthropic's usage object in OpenAI's shape (cache counts 0 when absent, as litellm fills them)."""
    written = _count(usage.get("cache_creation_input_tokens"))
    read = _count(usage.get("cache_read_input_tokens"))
    details = usage.get("output_tokens_details")
    thinking = details.get("thinking_tokens") if isinstance(details, dict) else None
    return {
        "prompt_tokens": _count(usage.get("input_tokens")) + written + read,
        "completion_tokens": usage.get("output_tokens"),
        "prompt_tokens_details": {"cached_tokens": read, "cache_creation_tokens": written},
        "completion_tokens_details": {"reasoning_tokens": _count(thinking)},
    }


def message_events(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A buffered reply (one ``message`` object) as the events a stream of it would have sent."""
    yield {"type": "message_start", "message": {**message, "content": []}}
    for index, block in enumerate(message.get("content") or ()):
        yield from _block_events(index, block)
    delta = {"stop_reason": message.get("stop_reason")}
    yield {"type": "message_delta", "delta": delta, "usage": message.get("usage")}
    yield {"type": "message_stop"}


def _block_events(index: int, block: dict[str, Any]) -> Iterator[dict[str, Any]]:
    kind = block.get("type")
    if kind == "text":
        yield _start(index, {"type": "text", "text": ""})
        yield _change(index, {"type": "text_delta", "text": block.get("text") or ""})
    elif kind == "tool_use":
        yield _start(index, {**block, "input": {}})
        yield _change(index, {"type": "input_json_delta", "partial_json": json.dumps(block.get("input") or {})})
    elif kind == "thinking":
        yield _start(index, {"type": "thinking", "thinking": "", "signature": ""})
        yield _change(index, {"type": "thinking_delta", "thinking": block.get("thinking") or ""})
        yield _change(index, {"type": "signature_delta", "signature": block.get("signature") or ""})
    else:
        yield _start(index, block)
    yield {"type": "content_block_stop", "index": index}


def _start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _change(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _delta(delta: dict[str, Any]) -> Chunk:
    return {"choices": [{"delta": delta}]}


def _index(event: dict[str, Any]) -> int:
    index = event.get("index")
    return index if isinstance(index, int) else 0


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
