"""Assemble streamed chat-completion chunks into one reply.

Tolerant of what real servers send: tool-call fragments keyed by index, missing or empty call
ids, names repeated on every fragment, ``""`` arguments meaning ``{}``, whole arguments repeated,
usage inside a chunk that still has choices, and no finish_reason at all.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from msgspec import Struct, field

from engine.events import ToolCall, Usage
from engine.model.types import ModelReply, StreamItem, StreamReasoning, StreamText


def field_of(obj: Any, name: str) -> Any:
    """Read ``name`` from a provider object or a plain mapping (``None`` when absent)."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


class _PartialCall(Struct):
    id: str = ""
    name: str = ""
    fragments: list[str] = field(default_factory=list)

    def add(self, fragment: Any) -> None:
        call_id = field_of(fragment, "id")
        if call_id and not self.id:
            self.id = call_id
        function = field_of(fragment, "function")
        name = field_of(function, "name")
        if name and name != self.name:
            self.name = name if not self.name else self.name + name
        arguments = field_of(function, "arguments")
        if arguments and not self._repeats_whole(arguments):
            self.fragments.append(arguments)

    def _repeats_whole(self, arguments: str) -> bool:
        # Some servers resend the complete arguments with every fragment.
        return bool(self.fragments) and "".join(self.fragments) == arguments and _is_json(arguments)

    def finish(self) -> ToolCall:
        raw = "".join(self.fragments)
        return parse_tool_call(self.id, self.name, raw)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def new_call_id() -> str:
    """An id for a tool call whose server sent none."""
    return "call_" + uuid.uuid4().hex[:24]


def parse_tool_call(call_id: str | None, name: str, raw: str) -> ToolCall:
    """A ``ToolCall`` from its id, name and argument text; bad JSON is recorded, not raised."""
    call_id = call_id or new_call_id()
    if not raw.strip():
        return ToolCall(id=call_id, name=name, arguments={}, raw_arguments=raw)
    try:
        parsed = json.loads(raw)
    except ValueError as exc:
        return ToolCall(id=call_id, name=name, arguments={}, raw_arguments=raw, parse_error=f"invalid JSON ({exc})")
    if not isinstance(parsed, dict):
        error = f"arguments must be a JSON object, got {type(parsed).__name__}"
        return ToolCall(id=call_id, name=name, arguments={}, raw_arguments=raw, parse_error=error)
    return ToolCall(id=call_id, name=name, arguments=parsed, raw_arguments=raw)


class StreamAssembler:
    """Feeds on chunks one by one and builds the final ``ModelReply``."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self._thinking_blocks: list[Any] = []
        self.finish_reason: str | None = None
        self.usage_source: Any = None
        self.received_output = False
        self.response_id: str | None = None
        """The first response id a chunk carried."""

    def feed(self, chunk: Any) -> list[StreamItem]:
        """Take one chunk; return the text and reasoning deltas it carried."""
        items: list[StreamItem] = []
        usage = field_of(chunk, "usage")
        if usage is not None:
            self.usage_source = usage
        model = field_of(chunk, "model")
        if model and not self.model:
            self.model = model
        response_id = field_of(chunk, "id")
        if response_id and isinstance(response_id, str) and self.response_id is None:
            self.response_id = response_id
        for choice in field_of(chunk, "choices") or ():
            self._feed_choice(choice, items)
        return items

    def _feed_choice(self, choice: Any, items: list[StreamItem]) -> None:
        finish = field_of(choice, "finish_reason")
        if finish:
            self.finish_reason = finish
        delta = field_of(choice, "delta")
        if delta is None:
            return
        reasoning = field_of(delta, "reasoning_content") or field_of(delta, "reasoning")
        if reasoning:
            self._reasoning.append(reasoning)
            items.append(StreamReasoning(text=reasoning))
        content = field_of(delta, "content")
        if content:
            self._text.append(content)
            items.append(StreamText(text=content))
        for fragment in field_of(delta, "tool_calls") or ():
            index = field_of(fragment, "index") or 0
            self._calls.setdefault(index, _PartialCall()).add(fragment)
        blocks = field_of(delta, "thinking_blocks")
        if blocks:
            self._thinking_blocks.extend(blocks)
        if items or self._calls:
            self.received_output = True

    @property
    def text_length(self) -> int:
        """Characters of answer text received so far."""
        return sum(len(piece) for piece in self._text)

    @property
    def call_count(self) -> int:
        """Tool calls begun so far."""
        return len(self._calls)

    def reply(self, usage: Usage) -> ModelReply:
        """The assembled reply; call after the stream ended (with or without a finish_reason)."""
        calls = tuple(self._calls[i].finish() for i in sorted(self._calls))
        calls = _unique_ids(calls)
        provider_fields: tuple[tuple[str, Any], ...] = ()
        if self._thinking_blocks:
            provider_fields = (("thinking_blocks", _merge_thinking_blocks(self._thinking_blocks)),)
        return ModelReply(
            text="".join(self._text),
            reasoning="".join(self._reasoning),
            tool_calls=calls,
            finish_reason=self.finish_reason or ("tool_calls" if calls else "stop"),
            usage=usage,
            model=self.model,
            response_id=self.response_id,
            provider_fields=provider_fields,
        )


def _unique_ids(calls: tuple[ToolCall, ...]) -> tuple[ToolCall, ...]:
    """Give every call a distinct id (servers that send ``"0"`` or ``""`` for each would collide)."""
    seen: set[str] = set()
    unique = []
    for call in calls:
        if call.id in seen:
            call = ToolCall(
                id=new_call_id(),
                name=call.name,
                arguments=call.arguments,
                raw_arguments=call.raw_arguments,
                parse_error=call.parse_error,
            )
        seen.add(call.id)
        unique.append(call)
    return tuple(unique)


def _merge_thinking_blocks(blocks: list[Any]) -> list[dict[str, Any]]:
    """Join streamed thinking-block fragments into whole blocks, signatures kept."""
    merged: list[dict[str, Any]] = []
    for block in blocks:
        data = block if isinstance(block, dict) else dict(block)
        kind = data.get("type", "thinking")
        if kind == "thinking" and merged and merged[-1].get("type") == "thinking" and not merged[-1].get("signature"):
            last = merged[-1]
            last["thinking"] = (last.get("thinking") or "") + (data.get("thinking") or "")
            if data.get("signature"):
                last["signature"] = data["signature"]
        else:
            merged.append(dict(data))
    return merged


def whole_reply_as_chunk(response: Any) -> dict[str, Any]:
    """A non-streamed response in the shape of one stream chunk, so one assembler reads both."""
    choices = []
    for choice in field_of(response, "choices") or ():
        message = field_of(choice, "message")
        delta = {
            name: field_of(message, name) for name in ("content", "reasoning_content", "reasoning", "thinking_blocks")
        }
        calls = field_of(message, "tool_calls") or ()
        delta["tool_calls"] = [
            {"index": i, "id": field_of(c, "id"), "function": field_of(c, "function")} for i, c in enumerate(calls)
        ]
        choices.append({"delta": delta, "finish_reason": field_of(choice, "finish_reason")})
    return {
        "id": field_of(response, "id"),
        "choices": choices,
        "usage": field_of(response, "usage"),
        "model": field_of(response, "model"),
    }
