"""A loopback HTTP forwarder that records the wire between hive and a real model server.

Each request is relayed to the upstream server as it came; the answer goes back to hive the way it arrived
(a streamed, chunked answer chunk by chunk; a cut stream cut), and one `Exchange` per request keeps what was
asked, the status answered and the body hive received.
"""

from __future__ import annotations

import http.client
import json
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tests.support.local_http import LocalServer, RecordedRequest, ResponseWriter

_FORWARDED_HEADERS = ("content-type", "authorization", "accept")
_CHAT_PATH_END = "/chat/completions"
_READ_SIZE = 65_536


@dataclass(frozen=True)
class Exchange:
    """One request hive sent and what the server answered."""

    request: RecordedRequest
    status: int
    """The HTTP status the server answered (0 when it could not be reached)."""
    body: bytes
    """The response body as hive received it (the SSE text of a stream)."""
    cut: bool
    """True when the server closed the connection before the body was complete."""

    @property
    def is_chat(self) -> bool:
        """A chat-completions request (not a /v1/models or /props look-up)."""
        return self.request.method == "POST" and self.request.path.split("?")[0].endswith(_CHAT_PATH_END)

    @property
    def payload(self) -> dict[str, Any]:
        """The request's JSON body (empty for a body-less request)."""
        return self.request.json if isinstance(self.request.json, dict) else {}

    @property
    def streamed(self) -> bool:
        """The request asked for a streamed answer."""
        return self.payload.get("stream") is True

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools the request offered."""
        return [tool.get("function", {}).get("name", "?") for tool in self.payload.get("tools") or ()]

    @property
    def failed(self) -> bool:
        """The server refused the request (4xx/5xx), could not be reached, or cut the answer."""
        return self.status >= 400 or self.status == 0 or self.cut

    @property
    def empty_stream(self) -> bool:
        """A streamed request answered 200 with no data event at all (llama.cpp's overflow when streaming)."""
        return self.streamed and self.status == 200 and not self.events()

    def events(self) -> list[dict[str, Any]]:
        """The JSON objects of a streamed answer's `data:` lines ([DONE] left out)."""
        found = []
        for line in self.body.decode("utf-8", "replace").splitlines():
            data = line.removeprefix("data:").strip() if line.startswith("data:") else ""
            if data and data != "[DONE]":
                try:
                    found.append(json.loads(data))
                except ValueError:
                    found.append({"unparsed": data})
        return found

    def answer(self) -> dict[str, Any]:
        """An unstreamed answer's JSON object (empty when the body is not one)."""
        try:
            parsed = json.loads(self.body)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}

    def reply_text(self) -> str:
        """The assistant text the server answered, streamed or not."""
        if self.streamed:
            pieces = (choice.get("delta", {}).get("content") for e in self.events() for choice in e.get("choices", ()))
            return "".join(piece for piece in pieces if isinstance(piece, str))
        message = _first_message(self.answer())
        return message.get("content") or ""

    def reply_tool_calls(self) -> list[str]:
        """Names of the structured tool calls the server answered."""
        if self.streamed:
            deltas = (choice.get("delta", {}) for e in self.events() for choice in e.get("choices", ()))
            calls = [call for delta in deltas for call in delta.get("tool_calls") or ()]
        else:
            calls = list(_first_message(self.answer()).get("tool_calls") or ())
        return [name for call in calls if (name := (call.get("function") or {}).get("name"))]

    def error_text(self) -> str:
        """The body of a refused request, shortened for a summary line."""
        text = self.body.decode("utf-8", "replace").strip()
        return text if len(text) <= 300 else text[:300] + "..."


def _first_message(answer: dict[str, Any]) -> dict[str, Any]:
    choices = answer.get("choices") or [{}]
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    return message if isinstance(message, dict) else {}


def _read_upstream(response: http.client.HTTPResponse) -> bytes | None:
    """The next piece of a streamed answer: b"" at its proper end, None when the server cut it."""
    try:
        return response.read1(_READ_SIZE)
    except (http.client.HTTPException, OSError):
        return None


class RecordingProxy(LocalServer):
    """Forwards every request to `upstream` (a root URL such as http://127.0.0.1:8080) and records it."""

    name = "recording_proxy"

    def __init__(self, upstream: str, timeout: float = 600) -> None:
        parts = urlsplit(upstream)
        self._upstream_host = parts.hostname or "127.0.0.1"
        self._upstream_port = parts.port or 80
        self._timeout = timeout
        self._exchanges_lock = threading.Lock()
        self.exchanges: list[Exchange] = []
        """Every request relayed, in the order its answer ended."""
        super().__init__()

    def chat_exchanges(self) -> list[Exchange]:
        """The chat-completions exchanges, in order."""
        with self._exchanges_lock:
            return [exchange for exchange in self.exchanges if exchange.is_chat]

    def handle(self, request: RecordedRequest, writer: ResponseWriter) -> None:
        connection = http.client.HTTPConnection(self._upstream_host, self._upstream_port, timeout=self._timeout)
        try:
            self._relay(connection, request, writer)
        finally:
            connection.close()

    def _relay(self, connection: http.client.HTTPConnection, request: RecordedRequest, writer: ResponseWriter) -> None:
        headers = {name: value for name, value in request.headers.items() if name in _FORWARDED_HEADERS}
        try:
            connection.request(request.method, request.path, body=request.body or None, headers=headers)
            response = connection.getresponse()
        except OSError as error:
            self._keep(Exchange(request, 0, str(error).encode(), cut=True))
            writer.abort()
            return
        content_type = [("Content-Type", response.getheader("Content-Type") or "application/octet-stream")]
        if response.getheader("Content-Length") is None:
            self._relay_stream(request, response, writer, content_type)
        else:
            body = response.read()
            self._keep(Exchange(request, response.status, body, cut=False))
            writer.send(response.status, body, content_type)

    def _relay_stream(
        self,
        request: RecordedRequest,
        response: http.client.HTTPResponse,
        writer: ResponseWriter,
        headers: list[tuple[str, str]],
    ) -> None:
        writer.start_chunked(response.status, headers)
        received = bytearray()
        while piece := _read_upstream(response):
            received += piece
            writer.write_chunk(piece)
        cut = piece is None
        self._keep(Exchange(request, response.status, bytes(received), cut=cut))
        if cut:
            writer.abort()
        else:
            writer.end_chunked()

    def _keep(self, exchange: Exchange) -> None:
        with self._exchanges_lock:
            self.exchanges.append(exchange)
