"""Which search providers and which fetcher a research run uses, from the settings and the environment.

Where each provider is configured, and where its base URL can be pointed elsewhere (a local fake in
tests, a proxy or a self-hosted instance):

- searxng: ``SEARXNG_URL`` or the ``research.searxng_url`` setting (the variable wins); no key.
- tavily: ``TAVILY_API_KEY``; base URL ``TAVILY_API_BASE`` (default: Tavily's own).
- brave: ``BRAVE_API_KEY``; base URL ``BRAVE_API_BASE`` (default: Brave's own).
- duckduckgo: no key; available whenever the ddgs library is installed; its hosts are fixed.
- docs: a local folder (``--docs DIR``), which both finds and reads the sources.

The search APIs themselves are not subject to the private-address check: their URLs are configured by
the user, and a self-hosted SearXNG on localhost is common.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from pathlib import Path

from engine.research import brave, searxng, tavily
from engine.research.duckduckgo import DuckDuckGoSearch
from engine.research.fetch import WebFetcher
from engine.research.options import ResearchOptions
from engine.research.sources import PageFetcher, SearchProvider

_ORDER = ("searxng", "tavily", "brave", "duckduckgo")
_NEEDS = {
    "searxng": f"{searxng.URL_ENV} or the research.searxng_url setting",
    "tavily": tavily.KEY_ENV,
    "brave": brave.KEY_ENV,
    "duckduckgo": "the ddgs package",
}


class ResearchConfigError(Exception):
    """The research run cannot start as configured: a provider without its key or URL, or no provider at all."""


def build_providers(
    options: ResearchOptions, env: Mapping[str, str], *, docs_dir: Path | None, allow_private_urls: bool
) -> tuple[list[SearchProvider], PageFetcher]:
    """The providers to search, in the order to try them, and the fetcher that reads what they find.

    The requested provider (``options.provider``) comes first, then every other configured one as a
    fallback (wrap the list in ``FallbackSearch`` to get one provider that falls back). With no provider
    requested, the configured ones come in the order searxng, tavily, brave, duckduckgo. Local documents
    (provider "docs" or a ``docs_dir``) are used alone, as their own fetcher. Raises
    ``ResearchConfigError`` naming the missing variable or setting.
    """
    if options.provider == "docs" or docs_dir is not None:
        return _local_docs(docs_dir)
    available = configured(options, env)
    requested = options.provider
    if requested is not None and requested not in available:
        raise ResearchConfigError(f"the {requested} search provider is not configured: set {_NEEDS[requested]}")
    if not available:
        raise ResearchConfigError(f"no search provider is configured: set {_needs_any()}, or pass --docs DIR")
    names: list[str] = [requested] if requested is not None else []
    names += [name for name in available if name != requested]
    return [available[name]() for name in names], WebFetcher(allow_private_urls=allow_private_urls)


def configured(options: ResearchOptions, env: Mapping[str, str]) -> dict[str, Callable[[], SearchProvider]]:
    """A maker for each web provider that has what it needs, in the default order."""
    makers: dict[str, Callable[[], SearchProvider]] = {}
    searxng_url = _value(env, searxng.URL_ENV) or options.searxng_url
    if searxng_url:
        makers["searxng"] = lambda: searxng.SearxngSearch(searxng_url)
    if tavily_key := _value(env, tavily.KEY_ENV):
        tavily_base = _value(env, tavily.BASE_ENV) or tavily.DEFAULT_BASE_URL
        makers["tavily"] = lambda: tavily.TavilySearch(tavily_key, base_url=tavily_base)
    if brave_key := _value(env, brave.KEY_ENV):
        brave_base = _value(env, brave.BASE_ENV) or brave.DEFAULT_BASE_URL
        makers["brave"] = lambda: brave.BraveSearch(brave_key, base_url=brave_base)
    if importlib.util.find_spec("ddgs") is not None:
        makers["duckduckgo"] = DuckDuckGoSearch
    return {name: makers[name] for name in _ORDER if name in makers}


def _local_docs(docs_dir: Path | None) -> tuple[list[SearchProvider], PageFetcher]:
    if docs_dir is None:
        raise ResearchConfigError("the docs search provider needs a folder: pass --docs DIR")
    from engine.research.docs_index import LocalDocs  # type: ignore[import-not-found, unused-ignore]

    docs = LocalDocs(docs_dir)
    return [docs], docs


def _value(env: Mapping[str, str], name: str) -> str | None:
    return (env.get(name) or "").strip() or None


def _needs_any() -> str:
    return ", ".join(_NEEDS[name] for name in _ORDER if name != "duckduckgo")
