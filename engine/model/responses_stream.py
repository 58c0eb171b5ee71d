"""Read OpenAI Responses API events as the chat-completion chunks ``StreamAssembler`` consumes.

Answer text becomes ``content`` deltas, reasoning summaries (and raw reasoning text) become
``reasoning_content``, and each ``function_call`` output item becomes a tool call keyed by its output
index, with the item's ``call_id`` as the call's id. Whatever an item's deltas did not carry is taken
from the whole item when it is done, so a server that sends only finished items (or a buffered reply,
replayed as such items) gives the same reply. ``response.completed`` and ``response.incomplete`` end
the reply with its finish reason and usage; ``response.failed`` and ``error`` events are failures.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.model.http_errors import StreamErrorEvent

INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}
"""Why a response stopped short, as OpenAI finish reasons."""
ENDS = ("response.completed", "response.incomplete")
"""The events that end a reply that did not fail."""

Chunk = dict[str, Any]


class ResponsesEvents:
    """Turns the events of one response, in order, into chat-completion chunks."""

    def __init__(self) -> None:
        self._streamed: set[tuple[int, str]] = set()
        """(output index, what) pairs already delivered by deltas: "text", "reasoning", "arguments", "call"."""
        self._calls = 0
        self.reasoning_items: list[dict[str, Any]] = []
        """Finished reasoning items that carry encrypted content (to be sent back next turn)."""

    def chunks(self, event: dict[str, Any]) -> list[Chunk]:
        """The chunks one event carries (none for bookkeeping events); raises for a failure event."""
        kind = str(event.get("type") or "")
        index = _index(event)
        if kind in ("response.created", "response.in_progress"):
            response = event.get("response") or {}
            return [{"id": response.get("id"), "model": response.get("model"), "choices": []}]
        if kind == "response.output_item.added":
            return self._item_started(index, event.get("item") or {})
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            return self._delta(index, "text", {"content": event.get("delta") or None})
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return self._delta(index, "reasoning", {"reasoning_content": event.get("delta") or None})
        if kind == "response.reasoning_summary_part.added" and (index, "reasoning") in self._streamed:
            return [_delta({"reasoning_content": "\n\n"})]  # summary parts are paragraphs
        if kind == "response.function_call_arguments.delta":
            return self._arguments(index, event.get("delta") or "")
        if kind == "response.function_call_arguments.done" and (index, "arguments") not in self._streamed:
            return self._arguments(index, event.get("arguments") or "")
        if kind == "response.output_item.done":
            return self._item_done(index, event.get("item") or {})
        if kind in ENDS:
            return [self._end(event.get("response") or {})]
        if kind == "response.failed":
            error = (event.get("response") or {}).get("error")
            raise StreamErrorEvent(error or "the response failed")
        if kind == "error" or (not kind and isinstance(event.get("error"), dict | str)):
            raise StreamErrorEvent(event.get("error") or event)
        return []

    def _delta(self, index: int, what: str, delta: dict[str, Any]) -> list[Chunk]:
        self._streamed.add((index, what))
        return [_delta(delta)]

    def _item_started(self, index: int, item: dict[str, Any]) -> list[Chunk]:
        if item.get("type") != "function_call":
            return []
        self._streamed.add((index, "call"))
        self._calls += 1
        fragment = {"index": index, "id": item.get("call_id"), "function": {"name": item.get("name"), "arguments": ""}}
        return [_delta({"tool_calls": [fragment]})]

    def _arguments(self, index: int, text: str) -> list[Chunk]:
        self._streamed.add((index, "arguments"))
        return [_delta({"tool_calls": [{"index": index, "function": {"arguments": text}}]})]

    def _item_done(self, index: int, item: dict[str, Any]) -> list[Chunk]:
        kind = item.get("type")
        chunks: list[Chunk] = []
        if kind == "function_call":
            if (index, "call") not in self._streamed:
                chunks += self._item_started(index, item)
            if (index, "arguments") not in self._streamed and item.get("arguments"):
                chunks += self._arguments(index, str(item["arguments"]))
        elif kind == "message" and (index, "text") not in self._streamed:
            text = "".join(_texts(item.get("content"), ("output_text", "refusal")))
            chunks.append(_delta({"content": text or None}))
        elif kind == "reasoning":
            if (index, "reasoning") not in self._streamed:
                text = "\n\n".join(_texts(item.get("summary"), ("summary_text",)) or _texts(item.get("content")))
                chunks.append(_delta({"reasoning_content": text or None}))
            if item.get("encrypted_content"):
                self.reasoning_items.append(_reasoning_item(item))
        return chunks

    def _end(self, response: dict[str, Any]) -> Chunk:
        if response.get("status") == "incomplete":
            reason = (response.get("incomplete_details") or {}).get("reason")
            finish = INCOMPLETE_REASONS.get(str(reason), "length")
        else:
            finish = "tool_calls" if self._calls else "stop"
        usage = response.get("usage")
        chunk: Chunk = {"choices": [{"delta": {}, "finish_reason": finish}], "model": response.get("model")}
        chunk["id"] = response.get("id")
        chunk["usage"] = openai_usage(usage) if isinstance(usage, dict) else None
        return chunk


def openai_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """The Responses usage object in chat-completions shape (cached and reasoning counts as reported)."""
    cached = (usage.get("input_tokens_details") or {}).get("cached_tokens")
    reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    return {
        "prompt_tokens": usage.get("input_tokens"),
        "completion_tokens": usage.get("output_tokens"),
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }


def response_events(response: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A buffered reply (one ``response`` object) as the events a stream of it would have ended with."""
    yield {"type": "response.created", "response": response}
    for index, item in enumerate(response.get("output") or ()):
        yield {"type": "response.output_item.done", "output_index": index, "item": item}
    status = response.get("status")
    if status == "failed":
        yield {"type": "response.failed", "response": response}
    else:
        yield {"type": "response.incomplete" if status == "incomplete" else "response.completed", "response": response}


def _reasoning_item(item: dict[str, Any]) -> dict[str, Any]:
    """The item as it is sent back (the server refuses the ``status`` it adds to output items)."""
    return {key: value for key, value in item.items() if key != "status"}


def _texts(parts: Any, kinds: tuple[str, ...] = ("reasoning_text",)) -> list[str]:
    found = []
    for part in parts if isinstance(parts, list) else ():
        if isinstance(part, dict) and part.get("type") in kinds:
            found.append(str(part.get("text") or part.get("refusal") or ""))
    return found


def _delta(delta: dict[str, Any]) -> Chunk:
    return {"choices": [{"delta": delta}]}


def _index(event: dict[str, Any]) -> int:
    index = event.get("output_index")
    return index if isinstance(index, int) else 0
