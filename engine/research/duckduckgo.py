"""DuckDuckGo (and the other engines the ddgs library scrapes): no key, no base URL to point elsewhere.

ddgs is synchronous and scrapes fixed hosts, so calls run in a thread under a deadline, and tests inject a
fake client class through ``client_factory`` instead of a local server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from engine.research.sources import SearchError, SearchHit
from engine.research.unreachable import network_failure
from engine.research.web_search import hits_from

ClientFactory = Callable[[float], Any]
"""Makes a client with a ``text(query, *, max_results, region, safesearch)`` method from a timeout in seconds."""

_NO_RESULTS = "No results found."


def _ddgs_client(timeout_s: float) -> Any:
    from ddgs import DDGS

    return DDGS(timeout=max(1, round(timeout_s)))


class DuckDuckGoSearch:
    """Searches through the ddgs library; one call at a time by default (it is rate-limited quickly)."""

    name = "duckduckgo"

    def __init__(
        self,
        *,
        client_factory: ClientFactory = _ddgs_client,
        timeout_s: float = 15.0,
        max_concurrency: int = 1,
        region: str = "us-en",
        safesearch: str = "moderate",
    ) -> None:
        self._client_factory = client_factory
        self._timeout_s = timeout_s
        self._region = region
        self._safesearch = safesearch
        self._slots = asyncio.Semaphore(max_concurrency)

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """Up to ``limit`` hits for ``query``, best first; raises ``SearchError``."""
        async with self._slots:
            try:
                async with asyncio.timeout(self._timeout_s):
                    rows = await asyncio.to_thread(self._text, query, limit)
            except TimeoutError as exc:
                raise SearchError(self.name, f"no answer within {self._timeout_s:g} s", retryable=True) from exc
        return hits_from(rows, provider=self.name, url="href", snippet="body")[:limit]

    def _text(self, query: str, limit: int) -> list[Any]:
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

        client = self._client_factory(self._timeout_s)
        try:
            return list(client.text(query, max_results=limit, region=self._region, safesearch=self._safesearch))
        except RatelimitException as exc:
            raise SearchError(self.name, f"rate limited ({exc})", retryable=True) from exc
        except TimeoutException as exc:
            raise SearchError(self.name, f"timed out ({exc})", retryable=True) from exc
        except DDGSException as exc:
            if str(exc) == _NO_RESULTS:
                return []
            offline = network_failure(exc)
            if offline is not None:
                raise SearchError(
                    self.name, f"cannot reach its search engines: {offline}", retryable=True, unreachable=True
                ) from exc
            raise SearchError(self.name, f"failed ({exc})", retryable=True) from exc
