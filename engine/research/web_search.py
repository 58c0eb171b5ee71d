"""What the HTTP search providers (SearXNG, Tavily, Brave) share: one call with its limits and its errors.

A provider says what to send (``WebRequest``) and how to read the JSON answer; ``WebSearch`` sends it
with a deadline, at most ``max_concurrency`` calls at once per provider instance, waits out a 429's
Retry-After (capped, a bounded number of times) and turns every failure into a ``SearchError``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping
from typing import Any

from msgspec import Struct, field

from engine.model.failures import retry_after_of
from engine.research.http_client import new_http_client
from engine.research.sources import SearchError, SearchHit
from engine.research.unreachable import network_failure


class SearchLimits(Struct, frozen=True, kw_only=True):
    """How long, how often and how many at once a provider is called."""

    timeout_s: float = 15.0
    """Deadline of one HTTP call, connection and body included."""
    max_concurrency: int = 2
    """Calls in flight at once through one provider instance."""
    rate_limit_attempts: int = 3
    """Calls made in all while the provider answers 429; then a retryable ``SearchError``."""
    retry_after_cap_s: float = 10.0
    """The longest wait honoured from a Retry-After header."""
    backoff_s: float = 1.0
    """The first wait after a 429 without Retry-After (doubled each time, with jitter)."""


class WebRequest(Struct, frozen=True, kw_only=True):
    """One HTTP call to a search API."""

    method: str
    url: str
    params: Mapping[str, str | int] = field(default_factory=dict)
    json: Mapping[str, Any] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


class _RateLimited(Exception):
    def __init__(self, headers: Mapping[str, str]) -> None:
        super().__init__("rate limited")
        self.headers = headers


class WebSearch:
    """Base of the HTTP providers; a subclass sets ``name`` and gives ``request`` and ``parse``."""

    name = "web"
    refused_hint = "check the API key"
    """Said after a 401/403: what the user should check (the key's variable, a server setting)."""

    def __init__(self, base_url: str, *, limits: SearchLimits | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.limits = limits or SearchLimits()
        self._slots = asyncio.Semaphore(self.limits.max_concurrency)

    def request(self, query: str, limit: int) -> WebRequest:
        """The call that asks for ``limit`` hits for ``query``."""
        raise NotImplementedError

    def parse(self, payload: Any) -> list[SearchHit]:
        """The hits in a decoded JSON answer, best first (raise ``ValueError`` for an unexpected shape)."""
        raise NotImplementedError

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """Up to ``limit`` hits for ``query``, best first; raises ``SearchError``."""
        async with self._slots:
            payload = await self._call_with_rate_limit(self.request(query, limit))
        try:
            hits = self.parse(payload)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise SearchError(self.name, f"answered JSON of an unexpected shape ({exc})") from exc
        return hits[:limit]

    async def _call_with_rate_limit(self, request: WebRequest) -> Any:
        for attempt in range(1, self.limits.rate_limit_attempts + 1):
            try:
                return await self._call(request)
            except _RateLimited as limited:
                if attempt == self.limits.rate_limit_attempts:
                    break
                await asyncio.sleep(rate_limit_wait(limited.headers, attempt, self.limits))
        raise SearchError(self.name, f"rate limited (429) {attempt} times in a row", retryable=True)

    async def _call(self, request: WebRequest) -> Any:
        import httpx2 as httpx

        timeout = self.limits.timeout_s
        try:
            async with asyncio.timeout(timeout), new_http_client(timeout, trust_env=True) as client:
                response = await client.request(
                    request.method, request.url, params=request.params, json=request.json, headers=request.headers
                )
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise SearchError(self.name, f"no answer within {timeout:g} s", retryable=True) from exc
        except httpx.HTTPError as exc:
            offline = network_failure(exc)
            said = offline or _detail(str(exc)) or type(exc).__name__
            raise SearchError(
                self.name, f"cannot reach {self.base_url}: {said}", retryable=True, unreachable=offline is not None
            ) from exc
        return self._decode(response)

    def _decode(self, response: Any) -> Any:
        status = response.status_code
        if status == 429:
            raise _RateLimited(response.headers)
        if status in (401, 403):
            raise SearchError(self.name, f"refused the request ({status}): {self.refused_hint}")
        if status >= 500:
            raise SearchError(self.name, f"server error ({status})", retryable=True)
        if status >= 400:
            raise SearchError(self.name, f"rejected the request ({status}): {_detail(response.text)}")
        try:
            return response.json()
        except ValueError as exc:
            raise SearchError(self.name, f"answered something that is not JSON: {_detail(response.text)!r}") from exc


def rate_limit_wait(headers: Mapping[str, str], attempt: int, limits: SearchLimits) -> float:
    """Seconds to wait after the ``attempt``-th 429 in a row, never more than ``limits.retry_after_cap_s``.

    Retry-After (seconds or an HTTP date) first; then Brave's X-RateLimit-Reset, whose first window is the
    per-second one; then exponential backoff with jitter. ``headers`` is case-insensitive (httpx's) or
    has lower-case names.
    """
    asked = retry_after_of(_RateLimited(headers))
    if asked is None:
        asked = _first_window_reset(headers)
    if asked is None:
        asked = limits.backoff_s * float(2 ** (attempt - 1)) * (0.75 + random.random() / 2)
    return min(asked, limits.retry_after_cap_s)


def _first_window_reset(headers: Mapping[str, str]) -> float | None:
    first = (headers.get("x-ratelimit-reset") or "").split(",")[0].strip()
    try:
        return max(0.0, float(first)) if first else None
    except ValueError:
        return None


def _detail(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def text_of(value: Any) -> str:
    """A JSON value as text (None and non-strings become "")."""
    return value.strip() if isinstance(value, str) else ""


def hits_from(
    rows: Any, *, provider: str, url: str = "url", snippet: str = "content", clean: Callable[[Any], str] = text_of
) -> list[SearchHit]:
    """The JSON objects in ``rows`` that have a string ``url`` field, as hits in their order."""
    if not isinstance(rows, list):
        return []
    return [
        SearchHit(title=clean(row.get("title")), url=row[url], snippet=clean(row.get(snippet)), provider=provider)
        for row in rows
        if isinstance(row, dict) and isinstance(row.get(url), str)
    ]
