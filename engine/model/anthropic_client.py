"""A model client for Anthropic's messages API, straight over httpx: no litellm, no Anthropic SDK.

It yields what ``LiteLLMClient`` yields for ``anthropic/*`` models (the same stream items, replies,
usage with cache reads and writes, cost, error categories and retries). Requests are translated in
``anthropic_request``; events are read as chat-completion chunks by ``anthropic_stream`` so the
shared ``StreamAssembler`` builds the reply. The response fills a ``WireRecord`` as it is read, so a
stream that stops before ``message_stop`` is judged a broken reply, never a short answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import Any

from engine.errors import ProviderError
from engine.model.anthropic_request import request_body
from engine.model.anthropic_stream import AnthropicEvents, message_events
from engine.model.assembly import StreamAssembler
from engine.model.client_settings import ModelSettings
from engine.model.http_errors import StreamErrorEvent
from engine.model.openai_compat import aclosing_response, new_http_client, raise_for_status, read_body, sse_events
from engine.model.pricing import priced
from engine.model.providers import Endpoint
from engine.model.retrying import with_retries
from engine.model.stream_end import check_finished, explain
from engine.model.types import ModelReply, ModelRequest, StreamItem
from engine.model.usage import reported_usage
from engine.model.wire_record import WireRecord

ANTHROPIC_VERSION = "2023-06-01"


class AnthropicClient:
    """A ``ModelClient`` for ``POST {base}/v1/messages``."""

    def __init__(self, settings: ModelSettings, endpoint: Endpoint) -> None:
        self.settings = settings
        self.endpoint = endpoint
        self._http: tuple[asyncio.AbstractEventLoop, Any] | None = None

    @property
    def model(self) -> str:
        return self.settings.model

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        """Stream one reply, retrying failures that happen before any output."""
        return with_retries(lambda assembler: self._attempt(request, assembler), self.settings.retry)

    async def _attempt(self, request: ModelRequest, assembler: StreamAssembler) -> AsyncGenerator[StreamItem, None]:
        record = WireRecord(url=messages_url(self.endpoint.base_url))
        try:
            async with aclosing_response(await self._send(request, record)) as response:
                await raise_for_status(response, record)
                if self.settings.streaming:
                    async for item in self._read_stream(response, assembler, record):
                        yield item
                else:
                    message = json.loads(await read_body(response, record))
                    for item in _feed_all(assembler, AnthropicEvents(), message_events(message)):
                        yield item
        except (asyncio.CancelledError, ProviderError):
            raise
        except Exception as exc:
            raise explain(exc, assembler, record, model=self.model) from exc
        record.finish()
        check_finished(assembler, record, model=self.model, streamed=self.settings.streaming)
        yield self._reply(assembler)

    async def _send(self, request: ModelRequest, record: WireRecord) -> Any:
        http = self._client()
        body = request_body(
            request, model=self.model, model_name=self.endpoint.model_name, streaming=self.settings.streaming
        )
        outgoing = http.build_request("POST", record.url, json=body, headers=self._headers())
        response = await http.send(outgoing, stream=True)
        record.status = response.status_code
        record.content_type = response.headers.get("content-type", "")
        return response

    async def _read_stream(
        self, response: Any, assembler: StreamAssembler, record: WireRecord
    ) -> AsyncGenerator[StreamItem, None]:
        idle = self.settings.stream_idle_timeout_s
        clock = asyncio.get_running_loop()
        events = AnthropicEvents()
        async with asyncio.timeout(idle) as deadline:
            async for event in sse_events(response, record):
                deadline.reschedule(None)  # the consumer's time between chunks is not the server's idling
                _note_end(event, record)
                for item in _feed_all(assembler, events, (event,)):
                    yield item
                deadline.reschedule(clock.time() + idle)

    def _headers(self) -> dict[str, str]:
        headers = {
            "Accept": "text/event-stream" if self.settings.streaming else "application/json",
            "anthropic-version": ANTHROPIC_VERSION,
        }
        key = self.settings.api_key or self.endpoint.api_key
        if key:
            headers["x-api-key"] = key
        return headers

    def _client(self) -> Any:
        """One httpx client per event loop (its connection pool belongs to the loop)."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._http[0] is not loop:
            self._http = (loop, new_http_client(self.settings))
        return self._http[1]

    def _reply(self, assembler: StreamAssembler) -> ModelReply:
        reply = assembler.reply(reported_usage(assembler.usage_source, None))
        usage = reply.usage
        if usage.reasoning_tokens == 0 and (reply.reasoning or dict(reply.provider_fields).get("thinking_blocks")):
            # The model visibly reasoned, so a zero count means Anthropic did not say (as on litellm's path).
            reply = replace(reply, usage=replace(usage, reasoning_tokens=None))
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
