"""Brave's web search API: ``GET {base}/res/v1/web/search`` with the key in ``X-Subscription-Token``.

The key comes from ``BRAVE_API_KEY``; the base URL from the constructor, ``BRAVE_API_BASE`` or the default.
"""

from __future__ import annotations

import html
import re
from typing import Any

from engine.research.sources import SearchHit
from engine.research.web_search import SearchLimits, WebRequest, WebSearch, hits_from, text_of

KEY_ENV = "BRAVE_API_KEY"
BASE_ENV = "BRAVE_API_BASE"
DEFAULT_BASE_URL = "https://api.search.brave.com"
MAX_RESULTS = 20
_TAGS = re.compile(r"<[^>]+>")


class BraveSearch(WebSearch):
    """Searches with Brave; snippets come without their ``<strong>`` highlighting."""

    name = "brave"
    refused_hint = f"check the key in {KEY_ENV}"

    def __init__(self, api_key: str, *, base_url: str = DEFAULT_BASE_URL, limits: SearchLimits | None = None) -> None:
        super().__init__(base_url, limits=limits)
        self._api_key = api_key

    def request(self, query: str, limit: int) -> WebRequest:
        """The search call, asking for ``limit`` results (Brave allows at most 20)."""
        params: dict[str, str | int] = {"q": query, "count": max(1, min(limit, MAX_RESULTS))}
        headers = {"X-Subscription-Token": self._api_key, "Accept": "application/json"}
        return WebRequest(method="GET", url=f"{self.base_url}/res/v1/web/search", params=params, headers=headers)

    def parse(self, payload: Any) -> list[SearchHit]:
        """The ``web.results`` list as hits; no ``web`` section means no results."""
        web = payload.get("web") or {}
        return hits_from(web.get("results"), provider=self.name, snippet="description", clean=_plain)


def _plain(value: Any) -> str:
    return html.unescape(_TAGS.sub("", text_of(value)))
