"""A model-client wrapper that turns tool calls written as text into structured ones.

When a reply carries no structured calls but its text holds calls to offered tools in a known form
(``engine.model.text_tool_calls``), the reply comes out with those calls and with the text before
their markup; the loop then runs them like any other call (approval, permissions, checkpoints) and
sends the results back as tool messages after the assistant message that carries the calls.

While the reply streams, text that may be call markup is held back until the reply ends: from the
first call tag on, and the whole reply while it may still be a bare or fenced JSON call. What
becomes a call is never shown as answer text; what does not is shown when the reply ends.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing

from msgspec.structs import replace

from engine.errors import ProviderError
from engine.model.text_tool_calls import CALL_MARKERS, OfferedTool, calls_in_text, offered_tools
from engine.model.types import ModelClient, ModelReply, ModelRequest, StreamItem, StreamRetry, StreamText

_FENCE_OPENING = re.compile(r"`{1,3}|```[ \t]*(?:j|js|jso|json)?[ \t]*")
_FENCE_LINE = re.compile(r"```[ \t]*(?:json)?[ \t]*")


class TextToolCalls:
    """A ``ModelClient`` whose replies carry, as structured calls, the tool calls the model wrote as text."""

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner

    @property
    def model(self) -> str:
        return self.inner.model

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        """The wrapped stream, text that may be call markup held back, and the reply with the calls found."""
        tools = offered_tools(request.tools)
        if not tools:
            async with aclosing(self.inner.stream(request)) as items:
                async for item in items:
                    yield item
            return
        held = HeldMarkup()
        try:
            async with aclosing(self.inner.stream(request)) as items:
                async for item in items:
                    for out in _passed(item, held, tools):
                        yield out
                    if isinstance(item, StreamRetry):
                        held = HeldMarkup()
        except ProviderError:
            for out in _shown(held.release()):
                yield out
            raise


def _passed(item: StreamItem, held: HeldMarkup, tools: Mapping[str, OfferedTool]) -> list[StreamItem]:
    """What the wrapper yields for ``item``: text let through, the held text when it stays text, the reply."""
    if isinstance(item, StreamText):
        return _shown(held.feed(item.text))
    if isinstance(item, ModelReply):
        found = with_text_calls(item, tools)
        return [found] if found is not None else [*_shown(held.release()), item]
    if isinstance(item, StreamRetry):
        return [*_shown(held.release()), item]
    return [item]


def _shown(text: str) -> list[StreamItem]:
    return [StreamText(text=text)] if text else []


def with_text_calls(reply: ModelReply, tools: Mapping[str, OfferedTool]) -> ModelReply | None:
    """``reply`` with the calls its text holds as structured calls; None when it has none (or has real ones)."""
    if reply.tool_calls:
        return None
    found = calls_in_text(reply.text, tools)
    if found is None:
        return None
    return replace(reply, text=found.text, tool_calls=found.calls, finish_reason="tool_calls")


class HeldMarkup:
    """Streamed answer text, let through except what may still turn out to be call markup."""

    def __init__(self) -> None:
        self._text = ""
        self._shown = 0

    def feed(self, piece: str) -> str:
        """Take the next piece; return the text that can be shown now."""
        self._text += piece
        end = max(self._shown, self._safe_end())
        shown, self._shown = self._text[self._shown : end], end
        return shown

    def release(self) -> str:
        """Everything held back so far (the reply ended, or stays text); nothing is held after it."""
        rest, self._shown = self._text[self._shown :], len(self._text)
        return rest

    def _safe_end(self) -> int:
        text = self._text
        if self._shown == 0 and may_open_whole_call(text):
            return 0
        tags = [text.find(marker) for marker in CALL_MARKERS if marker in text]
        if tags:
            return min(tags)
        return len(text) - _partial_tag_length(text)


def may_open_whole_call(text: str) -> bool:
    """Whether ``text`` may still be the start of a reply that is all a JSON call, bare or fenced."""
    start = text.lstrip()
    if not start or start.startswith("{"):
        return True
    line, newline, after = start.partition("\n")
    if not newline:
        return _FENCE_OPENING.fullmatch(line) is not None
    body = after.lstrip()
    return _FENCE_LINE.fullmatch(line) is not None and (not body or body[0] in "{[")


def _partial_tag_length(text: str) -> int:
    """How many characters at the end of ``text`` may be the beginning of a call tag."""
    longest = 0
    for marker in CALL_MARKERS:
        for size in range(1, len(marker)):
            if size > longest and text.endswith(marker[:size]):
                longest = size
    return longest
