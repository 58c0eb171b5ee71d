"""What hive's own HTTP model clients share: one try at a call, the stream's idle deadline, retries, HTTP.

A protocol client (OpenAI-compatible, Anthropic) says where to post, what to send and how to read
events; ``DirectClient`` does the rest the same way for both: the response fills a ``WireRecord``
as it is read, failures are worded by ``stream_end.explain``, the end is judged by
``check_finished``, and failures before any output are retried by ``with_retries``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

from msgspec.structs import replace

from engine.errors import ProviderError
from engine.model.assembly import StreamAssembler
from engine.model.client_settings import ModelSettings
from engine.model.deadline import UnfinishedEvent, call_deadline
from engine.model.dialect import WireShape
from engine.model.empty_stream import unstreamed_after_empty_stream
from engine.model.http_errors import HttpStatusError
from engine.model.providers import Endpoint
from engine.model.retrying import with_retries
from engine.model.stream_end import check_finished, explain
from engine.model.types import ModelReply, ModelRequest, StreamItem, StreamOpened, StreamRetry
from engine.model.wire_record import WireRecord

EventFeeder = Callable[[dict[str, Any]], list[StreamItem]]
"""Takes one decoded stream event, returns the deltas it carried (may raise for an error event)."""


class DirectClient:
    """A ``ModelClient`` over httpx; subclasses give the protocol's URL, body, headers and event reading."""

    def __init__(self, settings: ModelSettings, endpoint: Endpoint) -> None:
        self.settings = settings
        self.endpoint = endpoint
        self._http: tuple[asyncio.AbstractEventLoop, Any] | None = None

    @property
    def model(self) -> str:
        return self.settings.model

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        """Stream one reply, retrying failures that happen before any output (an empty stream: once unstreamed)."""
        streamed = with_retries(lambda assembler: self._attempt(request, assembler), self.settings.retry)
        if not self.settings.streaming:
            return streamed
        unstreamed = type(self)(replace(self.settings, streaming=False), self.endpoint)
        return unstreamed_after_empty_stream(
            streamed, lambda: unstreamed.stream(request), lambda: self.streams_empty_with_tools(request)
        )

    # --- what a protocol gives ---------------------------------------------------------------------

    def url(self) -> str:
        """Where requests are posted."""
        raise NotImplementedError

    def body(self, request: ModelRequest, shape: WireShape) -> dict[str, Any]:
        """The JSON body of ``request``, sent in ``shape``."""
        raise NotImplementedError

    def streams_empty_with_tools(self, request: ModelRequest) -> None:
        """An empty stream was answered whole unstreamed: a protocol that learns dialects remembers it."""

    def shape_for(self, request: ModelRequest) -> WireShape:
        """How ``request`` goes over the wire: streamed as the settings say (a protocol may know better)."""
        return WireShape(streamed=self.settings.streaming, asks_usage=self.settings.streaming)

    def reshape(
        self, refusal: HttpStatusError, request: ModelRequest, shape: WireShape
    ) -> tuple[WireShape, str] | None:
        """A shape the server accepts, learned from ``refusal``, and the notice saying so; None: nothing learned."""
        return None

    def auth_headers(self, key: str) -> dict[str, str]:
        """The headers that carry the API key (and the protocol's own headers)."""
        raise NotImplementedError

    def whole_reply(self, assembler: StreamAssembler, body: Any) -> list[StreamItem]:
        """Feed a buffered (not streamed) JSON reply to ``assembler``."""
        raise NotImplementedError

    def event_feeder(self, assembler: StreamAssembler, record: WireRecord) -> EventFeeder:
        """A reader of one stream's events (it may keep state across them)."""
        raise NotImplementedError

    def reply(self, assembler: StreamAssembler, record: WireRecord) -> ModelReply:
        """The assembled reply, with usage and cost."""
        raise NotImplementedError

    # --- the shared call ---------------------------------------------------------------------------

    async def _attempt(self, request: ModelRequest, assembler: StreamAssembler) -> AsyncGenerator[StreamItem, None]:
        shape = self.shape_for(request)
        while True:
            record = WireRecord(url=self.url())
            try:
                http, outgoing = self._request(request, record, shape)  # hive's own work, before the deadline starts
                async with (
                    call_deadline(self.settings.timeout_s) as deadline,
                    aclosing(await self._send(http, outgoing, record)) as response,
                ):
                    await raise_for_status(response, record)
                    with deadline.paused():
                        yield StreamOpened()
                    async for item in self._items(response, shape, assembler, record):
                        with deadline.paused():
                            yield item
                break
            except (asyncio.CancelledError, ProviderError):
                raise
            except Exception as exc:
                reshaped = self.reshape(exc, request, shape) if isinstance(exc, HttpStatusError) else None
                if reshaped is None:
                    raise explain(exc, assembler, record, model=self.model, timeout_s=self.settings.timeout_s) from exc
                shape, notice = reshaped
                yield StreamRetry(category="bad_request", message=notice, attempt=1, delay_s=0.0)
        record.finish()
        check_finished(assembler, record, model=self.model, streamed=shape.streamed)
        yield self.reply(assembler, record)

    async def _items(
        self, response: Any, shape: WireShape, assembler: StreamAssembler, record: WireRecord
    ) -> AsyncGenerator[StreamItem, None]:
        if shape.streamed:
            async for item in self._read_stream(response, assembler, record):
                yield item
        else:
            for item in self.whole_reply(assembler, json.loads(await read_body(response, record))):
                yield item

    def _request(self, request: ModelRequest, record: WireRecord, shape: WireShape) -> tuple[Any, Any]:
        """The HTTP client and the request to send on it, in ``shape``."""
        http = self._client()
        body = self.body(request, shape)
        return http, http.build_request("POST", record.url, json=body, headers=self._headers(shape))

    async def _send(self, http: Any, outgoing: Any, record: WireRecord) -> Any:
        response = await http.send(outgoing, stream=True)
        record.status = response.status_code
        record.content_type = response.headers.get("content-type", "")
        return response

    async def _read_stream(
        self, response: Any, assembler: StreamAssembler, record: WireRecord
    ) -> AsyncGenerator[StreamItem, None]:
        feed = self.event_feeder(assembler, record)
        idle = self.settings.stream_idle_timeout_s
        clock = asyncio.get_running_loop()
        async with asyncio.timeout(idle) as deadline:
            async for event in sse_events(response, record):
                deadline.reschedule(None)  # the consumer's time between chunks is not the server's idling
                for item in feed(event):
                    yield item
                deadline.reschedule(clock.time() + idle)

    def _headers(self, shape: WireShape) -> dict[str, str]:
        headers = {"Accept": "text/event-stream" if shape.streamed else "application/json"}
        key = self.settings.api_key or self.endpoint.api_key
        return headers | self.auth_headers(key or "")

    def _client(self) -> Any:
        """One httpx client per event loop (its connection pool belongs to the loop)."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._http[0] is not loop:
            self._http = (loop, new_http_client(self.settings, plain_http=self.url().startswith("http://")))
        return self._http[1]


def new_http_client(settings: ModelSettings, *, plain_http: bool = False) -> Any:
    """An httpx client with the settings' timeouts, honouring the proxy environment.

    ``plain_http``: every request goes to an ``http://`` URL (a local server), so the client gets a TLS
    context without certificates instead of loading the system's (tens of milliseconds); a TLS
    connection through it (an https proxy) fails verification, never passes unverified.
    """
    # httpx2 (httpx's successor, which the OpenAI and MCP SDKs use) skips httpx's command-line
    # module and the click, rich and pygments it loads: about 45 ms of start-up.
    import httpx2 as httpx

    timeout = httpx.Timeout(settings.timeout_s, connect=min(10.0, settings.timeout_s))
    if plain_http:
        import ssl

        return httpx.AsyncClient(timeout=timeout, trust_env=True, verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
    return httpx.AsyncClient(timeout=timeout, trust_env=True)


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


DRAIN_S = 1.0
"""How long to wait for the body's end after ``data: [DONE]`` before giving the connection up."""


async def sse_events(response: Any, record: WireRecord) -> AsyncIterator[dict[str, Any]]:
    """The JSON objects of a server-sent event stream, up to ``data: [DONE]``."""
    pending = b""
    pieces = response.aiter_bytes()
    async for piece in pieces:
        record.take(piece)
        lines = (pending + piece).split(b"\n")
        pending = lines.pop()
        for line in lines:
            event = _event_of(line.strip())
            if event is _DONE:
                await _drain(pieces, record)
                return
            if event is not None:
                yield event
    event = _last_event(pending.strip(), record)
    if isinstance(event, dict):
        yield event


async def _drain(pieces: AsyncIterator[bytes], record: WireRecord) -> None:
    """Read the body to its end (normally only the closing chunk), so the connection goes back to the pool.

    A response closed before its end closes its connection: every call would then open a new one
    (a new TLS handshake, against a real provider).
    """
    try:
        async with asyncio.timeout(DRAIN_S):
            async for piece in pieces:
                record.take(piece)
    except TimeoutError:
        return  # a server that keeps the stream open past [DONE]: its connection is closed instead


_DONE: Any = object()


def _last_event(rest: bytes, record: WireRecord) -> Any:
    """The event in the bytes after the body's last newline (a server may leave it off); ``UnfinishedEvent``
    when an event stream closed inside an event (a body that is no event stream is judged by its end)."""
    if rest.startswith(b"data:") and _is_json(rest[5:]):
        return _event_of(rest)
    if rest and record.is_event_stream:
        raise UnfinishedEvent(len(rest))
    return None


def _is_json(payload: bytes) -> bool:
    try:
        json.loads(payload)
    except ValueError:
        return payload.strip() == b"[DONE]"
    return True


def _event_of(line: bytes) -> Any:
    if not line.startswith(b"data:"):
        return None  # comments, event names, ids, blank separators
    payload = line[5:].strip()
    if payload == b"[DONE]":
        return _DONE
    event = json.loads(payload)
    return event if isinstance(event, dict) else None
