"""SearXNG through its JSON API: ``GET {base}/search?q=...&format=json``.

The instance's base URL comes from ``SEARXNG_URL`` (which wins) or the ``research.searxng_url`` setting.
The instance must list ``json`` under ``search.formats`` in its settings.yml, or it answers 403.
"""

from __future__ import annotations

from typing import Any

from engine.research.sources import SearchHit
from engine.research.web_search import WebRequest, WebSearch, hits_from

URL_ENV = "SEARXNG_URL"


class SearxngSearch(WebSearch):
    """Searches one SearXNG instance; it returns about 20 results a page, trimmed here to the limit."""

    name = "searxng"
    refused_hint = "enable the json format (search.formats in the instance's settings.yml)"

    def request(self, query: str, limit: int) -> WebRequest:
        """The JSON search call for ``query``, first page."""
        params: dict[str, str | int] = {"q": query, "format": "json", "pageno": 1}
        return WebRequest(method="GET", url=f"{self.base_url}/search", params=params)

    def parse(self, payload: Any) -> list[SearchHit]:
        """The ``results`` list as hits (``content`` is the snippet)."""
        return hits_from(payload.get("results"), provider=self.name)
