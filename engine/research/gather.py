"""Finding and reading sources: search with retries and fallback between providers, then fetch and guard.

Fetched text is untrusted. It passes the result guards (the prompt-injection guard among them)
before any model sees it: a withheld source is dropped, a flagged one keeps the guard's warning.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from msgspec import Struct

from engine.events import ToolCall
from engine.policy.guards import WITHHELD_PREFIX, ResultGuard, apply_guards
from engine.research.events import ResearchEvent, ResearchNotice, SourceDropped
from engine.research.sources import FetchedPage, FetchError, PageFetcher, SearchError, SearchHit, SearchProvider
from engine.tools.base import ToolResult

FETCH_CONCURRENCY = 4
RETRY_DELAY_S = 0.5


class ProvidersFailed(Exception):
    """Every provider failed on a search (the last error is the cause)."""

    def __init__(self, message: str, *, unreachable: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable
        """True when every provider failed because the network could not be reached."""


class GuardedPage(Struct, frozen=True, kw_only=True):
    """A page that passed the guards: its text as the model may see it."""

    page: FetchedPage
    hit: SearchHit
    text: str
    flagged: str = ""


@runtime_checkable
class Reporting(Protocol):
    """A provider with progress of its own to tell (the docs provider, how it indexed the folder)."""

    def report_to(self, emit: Callable[[ResearchEvent], None]) -> None:
        """Send that progress to ``emit``."""
        ...


class Searcher:
    """Searches through the first provider that answers; the next one takes over on ``SearchError``.

    A retryable error is retried (with backoff) while the iteration's retries last: ``retries`` per
    iteration, renewed by ``next_iteration``.
    """

    def __init__(self, providers: Sequence[SearchProvider], retries: int, emit: Callable[[ResearchEvent], None]):
        if not providers:
            raise ValueError("research needs at least one search provider")
        self.providers = list(providers)
        for provider in self.providers:
            if isinstance(provider, Reporting):
                provider.report_to(emit)
        self.retries = retries
        self.retries_left = retries
        self.emit = emit

    def next_iteration(self) -> None:
        """A new iteration: its retries start afresh."""
        self.retries_left = self.retries

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """The hits for ``query``; raises ``ProvidersFailed`` when no provider answers."""
        failures: list[SearchError] = []
        while self.providers:
            provider = self.providers[0]
            try:
                return await self._with_retries(provider, query, limit)
            except SearchError as error:
                failures.append(error)
                self.providers.pop(0)
                if self.providers:
                    self.emit(ResearchNotice(message=f"{error}; {self.providers[0].name} takes over"))
        last = failures[-1] if failures else None
        if failures and all(error.unreachable for error in failures):
            raise ProvidersFailed("; ".join(map(str, failures)), unreachable=True) from last
        raise ProvidersFailed(str(last)) from last

    async def _with_retries(self, provider: SearchProvider, query: str, limit: int) -> list[SearchHit]:
        attempt = 0
        while True:
            try:
                return await provider.search(query, limit)
            except SearchError as error:
                if not error.retryable or self.retries_left <= 0:
                    raise
                self.retries_left -= 1
                self.emit(ResearchNotice(message=f"{error}; trying again"))
                await asyncio.sleep(RETRY_DELAY_S * 2**attempt)
                attempt += 1


async def clean_hits(hits: Sequence[SearchHit], guards: Sequence[ResultGuard]) -> list[SearchHit]:
    """The hits whose title and snippet every guard lets through unchanged (snippets reach the planner)."""
    clean = []
    for hit in hits:
        call = ToolCall(id=f"research-hit-{hit.url}", name="research_search", arguments={"url": hit.url})
        shown = f"{hit.title}\n{hit.snippet}"
        if (await apply_guards(guards, call, ToolResult(shown))).output == shown:
            clean.append(hit)
    return clean


async def read_pages(
    hits: Sequence[SearchHit],
    fetcher: PageFetcher,
    guards: Sequence[ResultGuard],
    emit: Callable[[ResearchEvent], None],
) -> list[GuardedPage]:
    """Fetch ``hits`` (a few at a time) and pass each text through the guards; the pages that got through."""
    gate = asyncio.Semaphore(FETCH_CONCURRENCY)

    async def one(hit: SearchHit) -> GuardedPage | None:
        async with gate:
            return await _read(hit, fetcher, guards, emit)

    pages = await asyncio.gather(*(one(hit) for hit in hits))
    return [page for page in pages if page is not None]


async def _read(
    hit: SearchHit, fetcher: PageFetcher, guards: Sequence[ResultGuard], emit: Callable[[ResearchEvent], None]
) -> GuardedPage | None:
    try:
        page = await fetcher.fetch(hit.url)
    except FetchError as error:
        emit(SourceDropped(url=hit.url, reason=str(error), unreachable=error.unreachable))
        return None
    call = ToolCall(id=f"research-{hit.url}", name="research_fetch", arguments={"url": hit.url})
    guarded = await apply_guards(guards, call, ToolResult(page.text))
    if guarded.success is False and guarded.output.startswith(WITHHELD_PREFIX):
        emit(SourceDropped(url=hit.url, reason=guarded.output.removeprefix(WITHHELD_PREFIX), withheld=True))
        return None
    return GuardedPage(page=page, hit=hit, text=guarded.output, flagged=_flag(guarded.output, page.text))


def _flag(guarded: str, original: str) -> str:
    """What a guard put before the text (its warning), or '' when it let the text through unchanged."""
    if guarded == original:
        return ""
    return guarded.removesuffix(original).strip() or "changed by a result guard"


def normalise_url(url: str) -> str:
    """``url`` as a dedup key: lower-case scheme and host, no fragment, no ``utm_*``, no trailing slash."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return url
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if not k.lower().startswith("utm_")])
    path = parts.path.rstrip("/")
    return urlunsplit(("https", parts.netloc.lower(), path, query, ""))
