"""Load the recorded provider exchanges in tests/fixtures/provider_cassettes (copied from the shared fixtures) and replay them over HTTP.

`load_cassette(path)` reads any of the five recording formats (see that folder's README):

- A. vcrpy YAML (`body.string`, `status.code`);
- B. pydantic-ai's variant (JSON bodies already decoded under `parsed_body`);
- C. A with a gzip `!!binary` body and `Content-Encoding: gzip` (kept: the bytes are sent as recorded);
- D. old httpx style (`content` text, `status_code`; a stale `Content-Encoding` header is dropped);
- E. raw `.sse` files (one streamed chat-completion body, no request recorded).

`ReplayServer` serves a cassette's exchanges in order on any POST path, so both an Anthropic-style client
(api_base = `server.url`) and an OpenAI-style one (api_base = `server.base_url`) get the recorded bytes:

    with ReplayServer(CASSETTE_DIR / "openai/stream_single_tool_call_usage.sse") as server:
        httpx.post(f"{server.base_url}/chat/completions", json={...})
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from tests.support.local_http import LocalServer, RecordedRequest, ResponseWriter

CASSETTE_DIR = Path(
    os.environ.get("HIVE_CASSETTE_DIR") or Path(__file__).resolve().parents[1] / "fixtures/provider_cassettes"
)
"""Where the recordings live (override with HIVE_CASSETTE_DIR)."""

_DROPPED_HEADERS = frozenset({"content-length", "transfer-encoding", "connection"})
_GZIP_MAGIC = b"\x1f\x8b"
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's loader is ~10x faster


@dataclass(frozen=True)
class CassetteRequest:
    """The request side of a recorded exchange."""

    method: str
    uri: str
    """Full recorded URI ("" for .sse files, which recorded no request)."""
    json: Any
    """The request body parsed as JSON, or None when absent or not JSON."""

    @property
    def path(self) -> str:
        """Path part of the URI, e.g. "/v1/messages"."""
        return urlsplit(self.uri).path


@dataclass(frozen=True)
class CassetteResponse:
    """The response side, ready to be sent again."""

    status: int
    headers: tuple[tuple[str, str], ...]
    """Recorded headers minus transfer-encoding and connection, with content-length recomputed."""
    body: bytes
    """Body bytes as sent on the wire (still gzip-compressed when `Content-Encoding: gzip` is among headers)."""

    def header(self, name: str) -> str | None:
        """First value of a header, case-insensitively."""
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)

    @property
    def content(self) -> bytes:
        """The body as a client sees it after decoding (gunzipped when gzip-encoded)."""
        return gzip.decompress(self.body) if self.header("content-encoding") == "gzip" else self.body

    @property
    def is_sse(self) -> bool:
        """True for a text/event-stream body."""
        return (self.header("content-type") or "").startswith("text/event-stream")


@dataclass(frozen=True)
class Exchange:
    """One recorded request and the response it got."""

    request: CassetteRequest
    response: CassetteResponse


def cassette_files(root: Path = CASSETTE_DIR) -> list[Path]:
    """Every recording (.yaml and .sse) under `root`, sorted."""
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".sse"))


def load_cassette(path: str | Path) -> list[Exchange]:
    """The exchanges of one recording file, in the order the client sent them."""
    path = Path(path)
    if path.suffix == ".sse":
        response = _response_from(200, {"Content-Type": ["text/event-stream"]}, path.read_bytes())
        return [Exchange(CassetteRequest(method="POST", uri="", json=None), response)]
    document = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    return [_exchange(item) for item in document["interactions"]]


class ReplayServer(LocalServer):
    """Serves recorded exchanges in order, one per POST on any path; `requests` records what it received.

    Once the exchanges are used up it answers 500 "replay_server: no recorded exchange left".
    """

    name = "replay_server"

    def __init__(self, cassette: str | Path | Iterable[Exchange], host: str = "127.0.0.1") -> None:
        self.exchanges = load_cassette(cassette) if isinstance(cassette, str | Path) else list(cassette)
        """The exchanges to serve, in order."""
        self.served = 0
        """How many exchanges were sent so far."""
        super().__init__(host)

    @property
    def remaining(self) -> int:
        """Exchanges not served yet."""
        return len(self.exchanges) - self.served

    def handle(self, request: RecordedRequest, writer: ResponseWriter) -> None:
        """Send the next recorded response for a POST; answer 404 to anything else (and to Ollama's model info,
        which hive asks a local server for its window)."""
        if request.method != "POST" or request.path.split("?", 1)[0].rstrip("/") == "/api/show":
            writer.send_json(404, _error(f"replay_server: only POST is replayed, got {request.method} {request.path}"))
            return
        exchange = self._take()
        if exchange is None:
            writer.send_json(500, _error("replay_server: no recorded exchange left"))
            return
        response = exchange.response
        headers = [(name, value) for name, value in response.headers if name.lower() != "content-length"]
        writer.send(response.status, response.body, headers)

    def _take(self) -> Exchange | None:
        with self._lock:
            if self.served >= len(self.exchanges):
                return None
            self.served += 1
            return self.exchanges[self.served - 1]


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "server_error", "param": None, "code": None}}


def _exchange(item: Mapping[str, Any]) -> Exchange:
    request, response = item["request"], item["response"]
    status = response["status"]["code"] if "status" in response else response["status_code"]
    recorded_request = CassetteRequest(
        method=str(request.get("method", "POST")).upper(), uri=str(request.get("uri", "")), json=_request_json(request)
    )
    return Exchange(recorded_request, _response_from(int(status), response.get("headers") or {}, _body(response)))


def _request_json(request: Mapping[str, Any]) -> Any:
    if "parsed_body" in request:
        return request["parsed_body"]
    body = request.get("body")
    if isinstance(body, Mapping):
        body = body.get("string")
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def _body(response: Mapping[str, Any]) -> bytes:
    """Response body bytes from `parsed_body` (B), `content` (D) or `body.string` (A, C; bytes for !!binary)."""
    if "parsed_body" in response:
        return json.dumps(response["parsed_body"], default=str).encode()  # default: YAML may yield dates
    raw = response["content"] if "content" in response else (response.get("body") or {}).get("string", "")
    return raw if isinstance(raw, bytes) else str(raw).encode()


def _response_from(status: int, recorded: Mapping[str, Any], body: bytes) -> CassetteResponse:
    headers: list[tuple[str, str]] = []
    for name, values in recorded.items():
        for value in values if isinstance(values, list) else [values]:
            if _keep_header(str(name).lower(), str(value), body):
                headers.append((str(name), str(value)))
    if not any(name.lower() == "content-type" for name, _ in headers):
        sse = body.lstrip().startswith((b"data:", b"event:"))
        headers.append(("Content-Type", "text/event-stream" if sse else "application/json"))
    headers.append(("Content-Length", str(len(body))))
    return CassetteResponse(status=status, headers=tuple(headers), body=body)


def _keep_header(name: str, value: str, body: bytes) -> bool:
    if name in _DROPPED_HEADERS:
        return False
    if name == "content-encoding":  # keep it only when the body really is gzip (format C), not for D's text
        return value.lower() == "gzip" and body.startswith(_GZIP_MAGIC)
    return True
