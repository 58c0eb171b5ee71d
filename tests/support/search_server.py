"""A loopback server that answers as SearXNG, Tavily and Brave, and serves the pages their results point to.

Every provider answers every query with `results` (empty by default) in its own JSON shape, unless a
test scripted replies for it: each search request to that provider pops the next one (429 with
Retry-After, 401, a hang, malformed JSON, other results). Pages are the fixture files under
tests/fixtures/research_pages (served at /pages/<file name>) plus any `Page` added at a path: redirects,
other content types, oversized or streamed bodies, hangs.

    with SearchServer() as server:
        server.results = [Result("Solar sails", server.page_url("solar-sails.html"), "snippet")]
        server.script("tavily", rate_limited(0.01))
        TavilySearch(server.TAVILY_KEY, base_url=server.tavily_url)  # 429 first, then the results
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from tests.support.local_http import LocalServer, RecordedRequest, ResponseWriter

PAGES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "research_pages"
Provider = Literal["searxng", "tavily", "brave"]
_ROUTES: dict[str, Provider] = {
    "/searxng/search": "searxng",
    "/tavily/search": "tavily",
    "/brave/res/v1/web/search": "brave",
}
_HTML = "text/html; charset=utf-8"


@dataclass(frozen=True)
class Result:
    """One search result, rendered in each provider's shape."""

    title: str
    url: str
    snippet: str = ""


@dataclass(frozen=True)
class Reply:
    """One scripted answer to a search request (build it with the functions below)."""

    status: int = 200
    results: tuple[Result, ...] | None = None
    """None: the server's current `results`."""
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None
    """A raw body sent instead of the provider's JSON (with `content_type`)."""
    content_type: str = "application/json"
    hang: bool = False
    """Send nothing until the server closes."""
    delay_s: float = 0.0
    """Wait this long before answering."""
    gather: int = 0
    """Hold the answer until this many searches were being answered at once, for at most `delay_s`."""


@dataclass(frozen=True)
class Page:
    """A page served at a path: a body, or a redirect, a hang or a body streamed without Content-Length."""

    body: bytes = b""
    content_type: str = _HTML
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    chunked: bool = False
    """Stream the body in 64 KiB chunks with no Content-Length (a size cap must stop reading)."""
    hang: bool = False


def results(*items: Result) -> Reply:
    """Answer with these results."""
    return Reply(results=items)


def empty() -> Reply:
    """Answer with no results."""
    return Reply(results=())


def rate_limited(retry_after: float | str | None) -> Reply:
    """429, with a Retry-After header unless None."""
    headers = (("Retry-After", f"{retry_after}"),) if retry_after is not None else ()
    return Reply(status=429, headers=headers)


def status(code: int) -> Reply:
    """An error status with the provider's error body."""
    return Reply(status=code)


def hang() -> Reply:
    """Never answer (until the server closes)."""
    return Reply(hang=True)


def slow(seconds: float) -> Reply:
    """Answer with the current results after `seconds`."""
    return Reply(delay_s=seconds)


def gathered(count: int, within_s: float = 5.0) -> Reply:
    """Answer once `count` searches were in flight together, or after `within_s` if that never happens.

    Proves a bound on concurrency: with `count` one above the bound, every held answer waits out `within_s`
    and `max_in_flight` shows the bound; with no bound, the extra search arrives and releases them.
    """
    return Reply(gather=count, delay_s=within_s)


def malformed() -> Reply:
    """200 with a body that is not JSON."""
    return Reply(body=b"<html><body>Bad gateway, try later</body></html>", content_type=_HTML)


def redirect(location: str, code: int = 302) -> Page:
    """A redirect to `location`."""
    return Page(status=code, headers=(("Location", location),))


class SearchServer(LocalServer):
    """The fake search APIs and web pages; see the module docstring."""

    name = "search_server"
    TAVILY_KEY = "tvly-test-key"
    BRAVE_KEY = "BSA-test-key"

    def __init__(self, pages_dir: Path = PAGES_DIR) -> None:
        self.results: list[Result] = []
        """What every provider answers when no scripted reply is waiting."""
        self.pages: dict[str, Page] = {}
        """Pages by path; /pages/<name> also serves the file of that name in `pages_dir`."""
        self._pages_dir = pages_dir
        self._scripts: dict[str, deque[Reply]] = {}
        self._script_lock = threading.Lock()
        self._in_flight_changed = threading.Condition(self._script_lock)
        self._in_flight = 0
        self.max_in_flight = 0
        """The most search requests that were being answered at once."""
        super().__init__()

    @property
    def searxng_url(self) -> str:
        return f"{self.url}/searxng"

    @property
    def tavily_url(self) -> str:
        return f"{self.url}/tavily"

    @property
    def brave_url(self) -> str:
        return f"{self.url}/brave"

    def page_url(self, name: str) -> str:
        """The URL of fixture page `name` (a file in the pages folder) or of a page added at `/pages/<name>`."""
        return f"{self.url}/pages/{name}"

    def add_page(self, path: str, page: Page) -> str:
        """Serve `page` at `path`; return its URL."""
        self.pages[path] = page
        return f"{self.url}{path}"

    def script(self, provider: Provider, *replies: Reply) -> None:
        """Queue replies for `provider`'s next search requests."""
        with self._script_lock:
            self._scripts.setdefault(provider, deque()).extend(replies)

    def searches(self, provider: Provider) -> list[RecordedRequest]:
        """The search requests `provider` received, in order."""
        route = next(path for path, name in _ROUTES.items() if name == provider)
        return [request for request in self.requests if urlsplit(request.path).path == route]

    def handle(self, request: RecordedRequest, writer: ResponseWriter) -> None:
        path = urlsplit(request.path).path
        provider = _ROUTES.get(path)
        if provider is not None:
            self._search(provider, request, writer)
        else:
            self._page(path, writer)

    # --- searches ------------------------------------------------------------------------------------

    def _search(self, provider: Provider, request: RecordedRequest, writer: ResponseWriter) -> None:
        reply = self._next_reply(provider)
        self._count_in_flight(+1)
        if reply.gather:
            self._wait_for_in_flight(reply.gather, reply.delay_s)
        else:
            writer.wait(reply.delay_s)
        # Counted out before answering, so a client that got the answer can never be seen as still in flight.
        self._count_in_flight(-1)
        if reply.status == 200 and not self._authorised(provider, request):
            reply = Reply(status=401)
        if reply.hang:
            writer.wait(None)
            writer.abort()
        elif reply.body is not None:
            writer.send(reply.status, reply.body, [("Content-Type", reply.content_type), *reply.headers])
        elif reply.status != 200:
            writer.send_json(reply.status, _error_body(provider, reply.status), reply.headers)
        else:
            items = list(self.results if reply.results is None else reply.results)
            writer.send_json(200, _render(provider, _query_of(provider, request), items), reply.headers)

    def _count_in_flight(self, change: int) -> None:
        with self._in_flight_changed:
            self._in_flight += change
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            self._in_flight_changed.notify_all()

    def _wait_for_in_flight(self, count: int, within_s: float) -> None:
        deadline = time.monotonic() + within_s
        with self._in_flight_changed:
            while self.max_in_flight < count and not self._closing.is_set() and time.monotonic() < deadline:
                self._in_flight_changed.wait(min(0.05, within_s))

    def _next_reply(self, provider: Provider) -> Reply:
        with self._script_lock:
            queue = self._scripts.get(provider)
            return queue.popleft() if queue else Reply()

    def _authorised(self, provider: Provider, request: RecordedRequest) -> bool:
        if provider == "tavily":
            return request.headers.get("authorization") == f"Bearer {self.TAVILY_KEY}"
        if provider == "brave":
            return request.headers.get("x-subscription-token") == self.BRAVE_KEY
        return True

    # --- pages ---------------------------------------------------------------------------------------

    def _page(self, path: str, writer: ResponseWriter) -> None:
        page = self.pages.get(path) or self._fixture(path)
        if page is None:
            writer.send(404, b"<html><body>Not found</body></html>", [("Content-Type", _HTML)])
        elif page.hang:
            writer.wait(None)
            writer.abort()
        elif page.chunked:
            writer.start_chunked(page.status, [("Content-Type", page.content_type), *page.headers])
            for start in range(0, len(page.body), 65536):
                writer.write_chunk(page.body[start : start + 65536])
            writer.end_chunked()
        else:
            writer.send(page.status, page.body, [("Content-Type", page.content_type), *page.headers])

    def _fixture(self, path: str) -> Page | None:
        name = path.removeprefix("/pages/")
        if name == path or "/" in name or not (self._pages_dir / name).is_file():
            return None
        return Page(body=(self._pages_dir / name).read_bytes())


def _query_of(provider: Provider, request: RecordedRequest) -> str:
    if provider == "tavily":
        return str((request.json or {}).get("query", ""))
    values = parse_qs(urlsplit(request.path).query).get("q", [""])
    return values[0]


def _render(provider: Provider, query: str, items: list[Result]) -> dict[str, Any]:
    if provider == "searxng":
        return _searxng(query, items)
    if provider == "tavily":
        return _tavily(query, items)
    return _brave(query, items)


def _searxng(query: str, items: Iterable[Result]) -> dict[str, Any]:
    rows = [
        {
            "url": item.url,
            "title": item.title,
            "content": item.snippet,
            "engine": "duckduckgo",
            "engines": ["duckduckgo", "brave"],
            "positions": [rank],
            "score": 1.0 / rank,
            "category": "general",
            "template": "default.html",
            "publishedDate": None,
            "parsed_url": [*urlsplit(item.url)[:3], "", "", ""],
            "thumbnail": None,
            "img_src": None,
        }
        for rank, item in enumerate(items, start=1)
    ]
    return {
        "query": query,
        "number_of_results": 0,
        "results": rows,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [f"{query} news"],
        "unresponsive_engines": [["google", "timeout"]],
    }


def _tavily(query: str, items: Iterable[Result]) -> dict[str, Any]:
    rows = [
        {"title": item.title, "url": item.url, "content": item.snippet, "score": 0.9, "raw_content": None}
        for item in items
    ]
    return {
        "query": query,
        "answer": None,
        "images": [],
        "results": rows,
        "response_time": 0.05,
        "usage": {"credits": 1},
        "request_id": "req-test",
    }


def _brave(query: str, items: list[Result]) -> dict[str, Any]:
    payload: dict[str, Any] = {"type": "search", "query": {"original": query, "more_results_available": False}}
    if not items:
        return payload
    rows = [_brave_row(query, item) for item in items]
    payload["mixed"] = {"type": "mixed", "main": [{"type": "web", "index": 0, "all": True}], "top": [], "side": []}
    payload["web"] = {"type": "search", "family_friendly": True, "results": rows}
    return payload


def _brave_row(query: str, item: Result) -> dict[str, Any]:
    parts = urlsplit(item.url)
    first_word = query.split()[0] if query.split() else ""
    description = item.snippet.replace(first_word, f"<strong>{first_word}</strong>", 1) if first_word else item.snippet
    return {
        "type": "search_result",
        "subtype": "generic",
        "title": item.title,
        "url": item.url,
        "description": description,
        "age": "May 14, 2026",
        "language": "en",
        "family_friendly": True,
        "meta_url": {"scheme": parts.scheme, "netloc": parts.netloc, "hostname": parts.hostname, "path": parts.path},
        "extra_snippets": [],
    }


def _error_body(provider: Provider, code: int) -> Any:
    words = {401: "Unauthorized: missing or invalid API key.", 403: "Forbidden", 429: "Too many requests"}
    message = words.get(code, "Internal error")
    if provider == "tavily":
        return {"detail": {"error": message}}
    if provider == "brave":
        return {"type": "ErrorResponse", "error": {"status": code, "code": "ERROR", "detail": message}}
    return {"error": message}


def pdf_with_text(text: str, *, title: str = "") -> bytes:
    """A one-page PDF whose page shows `text` (ASCII, one line) and whose metadata holds `title`."""
    content = f"BT /F1 12 Tf 72 720 Td ({_pdf_escape(text)}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%b\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Title ({_pdf_escape(title)}) >>".encode(),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%b\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _pdf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
