"""A model client for Anthropic's messages API, straight over httpx: no litellm, no Anthropic SDK.

It yields what ``LiteLLMClient`` yields for ``anthropic/*`` models (the same stream items, replies,
usage with cache reads and writes, cost, error categories and retries). Requests are translated in
``anthropic_request``; events are read as chat-completion chunks by ``anthropic_stream`` so the
shared ``StreamAssembler`` builds the reply. The response fills a ``WireRecord`` as it is read, so a
stream that stops before ``message_stop`` is judged a broken reply, never a short answer.
"""

from __future__ import annotations

from typing import Any

from engine.model.anthropic_request import request_body
from engine.model.anthropic_stream import AnthropicEvents, message_events
from engine.model.assembly import StreamAssembler
from engine.model.dialect import WireShape
from engine.model.direct_client import DirectClient, EventFeeder
from engine.model.http_errors import StreamErrorEvent
from engine.model.pricing import priced
from engine.model.types import ModelReply, ModelRequest, StreamItem
from engine.model.usage import reported_usage, without_unreported_reasoning
from engine.model.wire_record import WireRecord

ANTHROPIC_VERSION = "2023-06-01"


class AnthropicClient(DirectClient):
    """A ``ModelClient`` for ``POST {base}/v1/messages``."""

    def url(self) -> str:
        return messages_url(self.endpoint.base_url)

    def body(self, request: ModelRequest, shape: WireShape) -> dict[str, Any]:
        return request_body(request, model=self.model, model_name=self.endpoint.model_name, streaming=shape.streamed)

    def auth_headers(self, key: str) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        return headers | {"x-api-key": key} if key else headers

    def whole_reply(self, assembler: StreamAssembler, body: Any) -> list[StreamItem]:
        return _feed_all(assembler, AnthropicEvents(), message_events(body))

    def event_feeder(self, assembler: StreamAssembler, record: WireRecord) -> EventFeeder:
        events = AnthropicEvents()  # one per stream: it follows the content blocks as they open and close

        def feed(event: dict[str, Any]) -> list[StreamItem]:
            _note_end(event, record)
            return _feed_all(assembler, events, (event,))

        return feed

    def reply(self, assembler: StreamAssembler, record: WireRecord) -> ModelReply:
        reply = without_unreported_reasoning(assembler.reply(reported_usage(assembler.usage_source, None)))
        return priced(reply, self.model) if self.endpoint.priced else reply


def messages_url(base_url: str) -> str:
    """``{base}/v1/messages``, accepting a base that already ends in ``/v1`` or ``/v1/messages``."""
    base = base_url.rstrip("/")
    if base.endswith("/v1/messages"):
        return base
    if base.endswith("/v1"):
        return base + "/messages"
    return base + "/v1/messages"


def _note_end(event: dict[str, Any], record: WireRecord) -> None:
    """Mark the record finished as Anthropic ends a stream; raise for an ``error`` event."""
    kind = event.get("type")
    if kind == "error" or (kind is None and isinstance(event.get("error"), dict | str)):
        raise StreamErrorEvent(event.get("error") or "the stream reported an error")
    if kind == "message_delta" and (event.get("delta") or {}).get("stop_reason"):
        record.finish_sent = True
    elif kind == "message_stop":
        record.done = True


def _feed_all(assembler: StreamAssembler, events: AnthropicEvents, stream: Any) -> list[StreamItem]:
    items: list[StreamItem] = []
    for event in stream:
        chunk = events.chunk(event)
        if chunk is not None:
            items += assembler.feed(chunk)
    return items
