"""What the research pipeline reads from: search providers that find candidates, and fetchers that read them.

A web provider (SearXNG, Tavily, Brave, DuckDuckGo) finds pages and hive's HTTP fetcher reads them; the
local-documents provider finds files in a BM25 index and reads them from disk. The pipeline sees only
these types, so any provider can take over from another.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from msgspec import Struct


class SearchHit(Struct, frozen=True, kw_only=True):
    """One result of a search: where it is and what the provider says about it."""

    title: str
    url: str
    """An http(s) URL, or for local documents the file's path."""
    snippet: str = ""
    provider: str = ""
    """The name of the provider that found it."""


class FetchedPage(Struct, frozen=True, kw_only=True):
    """The readable text of one source, as extracted (untrusted: it has not passed the guards yet)."""

    url: str
    title: str
    text: str
    accessed: datetime


class SearchError(Exception):
    """A provider could not answer: unreachable, refused (401/403), rate-limited past its retries, or broken."""

    def __init__(self, provider: str, message: str, *, retryable: bool = False, unreachable: bool = False) -> None:
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.retryable = retryable
        """True when another attempt (or another provider) may succeed."""
        self.unreachable = unreachable
        """True when the network could not be reached (name not resolved, connection refused, no route)."""


class FetchError(Exception):
    """A source could not be read: refused address, too large, not text, empty extraction, timeout."""

    def __init__(self, url: str, message: str, *, unreachable: bool = False) -> None:
        super().__init__(f"{url}: {message}")
        self.url = url
        self.unreachable = unreachable
        """True when the network could not be reached (name not resolved, connection refused, no route)."""


class SearchProvider(Protocol):
    """Finds candidate sources for a query."""

    name: str

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """Up to ``limit`` hits for ``query``, best first; raises ``SearchError``."""
        ...


class PageFetcher(Protocol):
    """Reads a source found by a provider."""

    async def fetch(self, url: str) -> FetchedPage:
        """The extracted text of ``url``; raises ``FetchError``."""
        ...
