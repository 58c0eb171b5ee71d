"""A model client for OpenAI's Responses API, straight over httpx: no litellm, no OpenAI SDK.

For the OpenAI models that speak only this protocol (the Codex and ``-pro`` models) and for any
``openai/responses/<name>`` model. It yields what the other clients yield (the same stream items,
replies, usage, cost, error categories and retries): requests are translated in ``responses_request``,
events are read as chat-completion chunks by ``responses_stream`` so the shared ``StreamAssembler``
builds the reply. The stream has no ``data: [DONE]``; ``response.completed`` (or
``response.incomplete``) marks its end, so a stream that stops before it is a broken reply.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from msgspec.structs import replace

from engine.model.assembly import StreamAssembler
from engine.model.client_settings import ModelSettings
from engine.model.dialect import WireShape
from engine.model.direct_client import DirectClient, EventFeeder
from engine.model.pricing import priced
from engine.model.providers import Endpoint
from engine.model.responses_request import REASONING_ITEMS, request_body
from engine.model.responses_stream import ENDS, ResponsesEvents, response_events
from engine.model.types import ModelReply, ModelRequest, StreamItem
from engine.model.usage import reported_usage
from engine.model.wire_record import WireRecord


class OpenAIResponsesClient(DirectClient):
    """A ``ModelClient`` for ``POST {base}/responses``."""

    def __init__(self, settings: ModelSettings, endpoint: Endpoint) -> None:
        super().__init__(settings, endpoint)
        # The event reader of each attempt in flight, found again by its assembler when the reply is built.
        self._readers: WeakKeyDictionary[StreamAssembler, ResponsesEvents] = WeakKeyDictionary()

    def url(self) -> str:
        return f"{self.endpoint.base_url.rstrip('/')}/responses"

    def body(self, request: ModelRequest, shape: WireShape) -> dict[str, Any]:
        return request_body(request, model=self.model, model_name=self.endpoint.model_name, streaming=shape.streamed)

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"} if key else {}

    def whole_reply(self, assembler: StreamAssembler, body: Any) -> list[StreamItem]:
        events = self._readers[assembler] = ResponsesEvents()
        return _feed_all(assembler, events, response_events(body if isinstance(body, dict) else {}))

    def event_feeder(self, assembler: StreamAssembler, record: WireRecord) -> EventFeeder:
        events = self._readers[assembler] = ResponsesEvents()  # one per attempt: it follows the output items

        def feed(event: dict[str, Any]) -> list[StreamItem]:
            if event.get("type") in ENDS:
                record.done = True
            return _feed_all(assembler, events, (event,))

        return feed

    def reply(self, assembler: StreamAssembler, record: WireRecord) -> ModelReply:
        reply = assembler.reply(reported_usage(assembler.usage_source, None))
        reader = self._readers.pop(assembler, None)
        items = reader.reasoning_items if reader is not None else []
        if items:
            reply = replace(reply, provider_fields=(*reply.provider_fields, (REASONING_ITEMS, items)))
        return priced(reply, self.model) if self.endpoint.priced else reply


def _feed_all(assembler: StreamAssembler, events: ResponsesEvents, stream: Any) -> list[StreamItem]:
    items: list[StreamItem] = []
    for event in stream:
        for chunk in events.chunks(event):
            items += assembler.feed(chunk)
    return items
