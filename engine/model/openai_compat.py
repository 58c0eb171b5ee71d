"""A model client for OpenAI's chat-completions protocol, straight over httpx: no litellm, no OpenAI SDK.

It yields what ``LiteLLMClient`` yields (the same stream items, replies, usage, error categories and
retries) for OpenAI and every OpenAI-compatible server, at a fraction of the start-up cost. The
response fills a ``WireRecord`` as it is read, so a broken reply is judged exactly as on the
litellm path, and usage is what the server sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from engine.errors import ProviderError
from engine.model.assembly import StreamAssembler, whole_reply_as_chunk
from engine.model.client_settings import ModelSettings
from engine.model.http_errors import HttpStatusError, StreamErrorEvent
from engine.model.pricing import priced
from engine.model.providers import Endpoint
from engine.model.retrying import with_retries
from engine.model.stream_end import check_finished, explain
from engine.model.types import ModelReply, ModelRequest, StreamItem
from engine.model.usage import reported_usage
from engine.model.wire_record import WireRecord

_PASSED_OPTIONS = ("temperature", "max_tokens", "reasoning_effort")
_TOOL_OPTIONS = ("tool_choice", "parallel_tool_calls")


class OpenAICompatClient:
    """A ``ModelClient`` for ``POST {base}/chat/completions``."""

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
        record = WireRecord(url=f"{self.endpoint.base_url.rstrip('/')}/chat/completions")
        try:
            async with aclosing_response(await self._send(request, record)) as response:
                await raise_for_status(response, record)
                if self.settings.streaming:
                    async for item in self._read_stream(response, assembler, record):
                        yield item
                else:
                    body = await read_body(response, record)
                    for item in assembler.feed(whole_reply_as_chunk(json.loads(body))):
                        yield item
        except (asyncio.CancelledError, ProviderError):
            raise
        except Exception as exc:
            raise explain(exc, assembler, record, model=self.model) from exc
        record.finish()
        check_finished(assembler, record, model=self.model, streamed=self.settings.streaming)
        yield self._reply(assembler, record)

    async def _send(self, request: ModelRequest, record: WireRecord) -> Any:
        http = self._client()
        outgoing = http.build_request("POST", record.url, json=self._body(request), headers=self._headers())
        response = await http.send(outgoing, stream=True)
        record.status = response.status_code
        record.content_type = response.headers.get("content-type", "")
        return response

    async def _read_stream(
        self, response: Any, assembler: StreamAssembler, record: WireRecord
    ) -> AsyncGenerator[StreamItem, None]:
        idle = self.settings.stream_idle_timeout_s
        clock = asyncio.get_running_loop()
        async with asyncio.timeout(idle) as deadline:
            async for event in sse_events(response, record):
                deadline.reschedule(None)  # the consumer's time between chunks is not the server's idling
                if isinstance(event.get("error"), dict | str):
                    raise StreamErrorEvent(event["error"])
                for item in assembler.feed(event):
                    yield item
                deadline.reschedule(clock.time() + idle)

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        options = request.options
        body: dict[str, Any] = {"model": self.endpoint.model_name, "messages": list(request.messages)}
        body["stream"] = self.settings.streaming
        if self.settings.streaming:
            body["stream_options"] = {"include_usage": True}
        if request.tools:
            body["tools"] = list(request.tools)
        names = _PASSED_OPTIONS + (_TOOL_OPTIONS if request.tools else ())
        body.update({name: value for name in names if (value := getattr(options, name)) is not None})
        body.update(dict(options.extra))
        return body

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream" if self.settings.streaming else "application/json"}
        key = self.settings.api_key or self.endpoint.api_key
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _client(self) -> Any:
        """One httpx client per event loop (its connection pool belongs to the loop)."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._http[0] is not loop:
            self._http = (loop, new_http_client(self.settings))
        return self._http[1]

    def _reply(self, assembler: StreamAssembler, record: WireRecord) -> ModelReply:
        if not self.settings.streaming:
            usage = reported_usage(assembler.usage_source, None)
        else:
            usage = reported_usage(None, record)
        reply = assembler.reply(usage)
        if not self.endpoint.priced:
            return reply
        return priced(reply, self.model)


def new_http_client(settings: ModelSettings) -> Any:
    """An httpx client with the settings' timeouts, honouring the proxy environment."""
    # httpx2 (httpx's successor, which the OpenAI and MCP SDKs use) skips httpx's command-line
    # module and the click, rich and pygments it loads: about 45 ms of start-up.
    import httpx2 as httpx

    timeout = httpx.Timeout(settings.timeout_s, connect=min(10.0, settings.timeout_s))
    return httpx.AsyncClient(timeout=timeout, trust_env=True)


class aclosing_response:
    """Close a streamed httpx response on the way out, whatever happened."""

    def __init__(self, response: Any) -> None:
        self.response = response

    async def __aenter__(self) -> Any:
        return self.response

    async def __aexit__(self, *exc_info: object) -> None:
        await self.response.aclose()


async def raise_for_status(response: Any, record: WireRecord) -> None:
    """Raise ``HttpStatusError`` (with the body read and recorded) for an HTTP error status."""
    if response.status_code < 400:
        return
    body = await read_body(response, record)
    raise HttpStatusError(response.status_code, body, response.headers)


async def read_body(response: Any, record: WireRecord) -> bytes:
    """The whole body, recorded."""
    body = await response.aread()
    record.take(body)
    return bytes(body)


async def sse_events(response: Any, record: WireRecord) -> AsyncIterator[dict[str, Any]]:
    """The JSON objects of a server-sent event stream, up to ``data: [DONE]``."""
    pending = b""
    async for piece in response.aiter_bytes():
        record.take(piece)
        lines = (pending + piece).split(b"\n")
        pending = lines.pop()
        for line in lines:
            event = _event_of(line.strip())
            if event is _DONE:
                return
            if event is not None:
                yield event
    event = _event_of(pending.strip())
    if isinstance(event, dict):
        yield event


_DONE: Any = object()


def _event_of(line: bytes) -> Any:
    if not line.startswith(b"data:"):
        return None  # comments, event names, ids, blank separators
    payload = line[5:].strip()
    if payload == b"[DONE]":
        return _DONE
    event = json.loads(payload)
    return event if isinstance(event, dict) else None
