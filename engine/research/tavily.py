"""Tavily's search API: ``POST {base}/search`` with a JSON body and the key as a bearer token.

The key comes from ``TAVILY_API_KEY``; the base URL from the constructor, ``TAVILY_API_BASE`` or the default.
"""

from __future__ import annotations

from typing import Any

from engine.research.sources import SearchHit
from engine.research.web_search import SearchLimits, WebRequest, WebSearch, hits_from

KEY_ENV = "TAVILY_API_KEY"
BASE_ENV = "TAVILY_API_BASE"
DEFAULT_BASE_URL = "https://api.tavily.com"
MAX_RESULTS = 20


class TavilySearch(WebSearch):
    """Searches with Tavily (basic depth: one credit a call)."""

    name = "tavily"
    refused_hint = f"check the key in {KEY_ENV}"

    def __init__(self, api_key: str, *, base_url: str = DEFAULT_BASE_URL, limits: SearchLimits | None = None) -> None:
        super().__init__(base_url, limits=limits)
        self._api_key = api_key

    def request(self, query: str, limit: int) -> WebRequest:
        """The search call, asking for ``limit`` results (Tavily allows at most 20)."""
        body = {"query": query, "search_depth": "basic", "max_results": max(1, min(limit, MAX_RESULTS))}
        headers = {"Authorization": f"Bearer {self._api_key}"}
        return WebRequest(method="POST", url=f"{self.base_url}/search", json=body, headers=headers)

    def parse(self, payload: Any) -> list[SearchHit]:
        """The ``results`` list as hits (``content`` is the snippet)."""
        return hits_from(payload.get("results"), provider=self.name)
