"""A threaded loopback HTTP/1.1 server that the scripted model server and the cassette replay server build on.

Standard library only. The server listens on 127.0.0.1 (or ::1) on a port the OS picks, serves from a daemon
thread, records every request it receives and gives subclasses a `ResponseWriter` that can send whole bodies
(with Content-Length), chunked streams flushed piece by piece, or cut the connection abruptly.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import socketserver
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

Headers = Iterable[tuple[str, str]]
"""Response headers as (name, value) pairs; a name may repeat."""

_log = logging.getLogger(__name__)
_CONNECTION_ERRORS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request exactly as a local server received it."""

    method: str
    """HTTP method, e.g. "POST"."""
    path: str
    """Request target as sent, query string included (e.g. "/v1/chat/completions")."""
    headers: Mapping[str, str]
    """Header names lower-cased; repeated headers joined with ", "."""
    body: bytes
    """Raw request body (de-chunked)."""
    json: Any
    """The body parsed as JSON, or None when it is empty or not JSON."""
    client_port: int
    """The client's source port: equal ports on consecutive requests prove a kept-alive connection."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat `messages` list of a JSON body (empty when absent)."""
        return list(self.json.get("messages", [])) if isinstance(self.json, dict) else []


class ResponseWriter:
    """Writes one HTTP response on a handler's socket: a whole body, a chunked stream, or an abrupt close."""

    def __init__(self, handler: _Handler, closing: threading.Event) -> None:
        self._handler = handler
        self._closing = closing
        self.started = False
        """True once the status line was written (an error can then no longer be reported as a status)."""

    def send(self, status: int, body: bytes, headers: Headers = ()) -> None:
        """Send a complete response; Content-Length is added here, Content-Type must be among `headers`."""
        self._head(status, [*headers, ("Content-Length", str(len(body)))])
        self._write(body)

    def send_json(self, status: int, payload: Any, headers: Headers = ()) -> None:
        """Send `payload` as a JSON body."""
        body = json.dumps(payload).encode()
        self.send(status, body, [("Content-Type", "application/json"), *headers])

    def send_truncated(self, status: int, body: bytes, headers: Headers, keep: int) -> None:
        """Announce the full Content-Length, send only the first `keep` bytes, then cut the connection."""
        self._head(status, [*headers, ("Content-Length", str(len(body)))])
        self._write(body[:keep])
        self.abort()

    def start_chunked(self, status: int = 200, headers: Headers = ()) -> None:
        """Send the head of a chunked response (for SSE: pass a text/event-stream Content-Type)."""
        self._head(status, [*headers, ("Cache-Control", "no-cache"), ("Transfer-Encoding", "chunked")])

    def write_chunk(self, data: bytes) -> None:
        """Send one chunk of a chunked body; each chunk is written (and so flushed) with one send call."""
        if data:
            self._write(b"%x\r\n%b\r\n" % (len(data), data))

    def end_chunked(self) -> None:
        """Send the terminating zero-length chunk: the response is complete and the connection reusable."""
        self._write(b"0\r\n\r\n")

    def abort(self) -> None:
        """Close the connection now, whatever was sent so far (the client sees a peer disconnect)."""
        self._handler.close_connection = True
        with contextlib.suppress(OSError):
            self._handler.connection.shutdown(socket.SHUT_RDWR)

    def wait(self, seconds: float | None) -> bool:
        """Sleep `seconds` (None: until the server closes); return False when the server closed meanwhile."""
        if seconds is not None and seconds <= 0:
            return not self._closing.is_set()
        return not self._closing.wait(seconds)

    def _head(self, status: int, headers: Headers) -> None:
        self.started = True
        headers = list(headers)
        names = {name.lower() for name, _ in headers}
        self._handler.send_response_only(status)
        if "server" not in names:
            self._handler.send_header("Server", self._handler.version_string())
        if "date" not in names:
            self._handler.send_header("Date", self._handler.date_time_string())
        for name, value in headers:
            self._handler.send_header(name, value)
        self._handler.end_headers()

    def _write(self, data: bytes) -> None:
        self._handler.wfile.write(data)


class LocalServer:
    """A loopback HTTP/1.1 server on an OS-chosen port, serving from a daemon thread until `close()`.

    Subclasses implement `handle(request, writer)`. Every request is appended to `requests` before it is
    handled. Use it as a context manager, or call `close()`: closing also wakes every handler that is waiting
    (hangs, delays) and shuts down kept-alive client connections.
    """

    name = "local_server"
    """Prefix of the error messages the server itself produces."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.requests: list[RecordedRequest] = []
        """Every request received, in arrival order."""
        self.errors: list[BaseException] = []
        """Exceptions raised while handling requests (a scripted callable that failed, for example)."""
        self._closing = threading.Event()
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        server_class = _HTTPServer6 if ":" in host else _HTTPServer
        self._httpd = server_class((host, 0), _Handler, owner=self)
        self.host = host
        self.port: int = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"{self.name}:{self.port}",
            daemon=True,
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """Root URL, e.g. http://127.0.0.1:PORT (an Anthropic-style api_base)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        """OpenAI-style base URL, e.g. http://127.0.0.1:PORT/v1."""
        return f"{self.url}/v1"

    @property
    def last_request(self) -> RecordedRequest:
        """The most recent request (IndexError when none arrived)."""
        return self.requests[-1]

    def handle(self, request: RecordedRequest, writer: ResponseWriter) -> None:
        """Answer one request; called on the connection's thread."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop serving, wake waiting handlers and close open connections; safe to call twice."""
        if self._closing.is_set():
            return
        self._closing.set()
        self._httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _track(self, connection: socket.socket, *, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _handle_safely(self, request: RecordedRequest, writer: ResponseWriter) -> None:
        try:
            self.handle(request, writer)
        except _CONNECTION_ERRORS:
            writer.abort()
        except Exception as exc:  # a broken scripted reply must fail the test loudly, not hang it
            _log.exception("%s: error while handling %s %s", self.name, request.method, request.path)
            self.errors.append(exc)
            if writer.started:
                writer.abort()
            else:
                message = f"{self.name}: error while handling the request: {exc!r}"
                writer.send_json(500, {"error": {"message": message, "type": "server_error", "code": None}})


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], handler: type[_Handler], *, owner: LocalServer) -> None:
        self.owner = owner
        super().__init__(address, handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind would call socket.getfqdn(), a reverse DNS lookup that can stall for seconds.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)


class _HTTPServer6(_HTTPServer):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._track(self.connection, open_=True)

    def handle(self) -> None:
        try:
            super().handle()
        except OSError:
            self.close_connection = True

    def finish(self) -> None:
        try:
            with contextlib.suppress(OSError):
                super().finish()
        finally:
            self.server.owner._track(self.connection, open_=False)

    def do_POST(self) -> None:
        self._dispatch()

    def do_GET(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_PATCH(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: test output is for the tests."""

    def _dispatch(self) -> None:
        owner = self.server.owner
        body = self._read_body()
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers=_merged_headers(self.headers.items()),
            body=body,
            json=_parse_json(body),
            client_port=self.client_address[1],
        )
        owner._record(request)
        owner._handle_safely(request, ResponseWriter(self, owner._closing))

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _read_chunked(self) -> bytes:
        parts: list[bytes] = []
        while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
            parts.append(self.rfile.read(size))
            self.rfile.readline()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass
        return b"".join(parts)


def _merged_headers(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    merged: dict[str, str] = {}
    for name, value in items:
        key = name.lower()
        merged[key] = f"{merged[key]}, {value}" if key in merged else value
    return merged


def _parse_json(body: bytes) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None
