"""Which providers a research run searches, and what reads their sources.

This build knows only local documents (``--docs DIR``); the web providers (SearXNG, Tavily, Brave,
DuckDuckGo) and hive's page fetcher come with the web side of issue #16, which replaces this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engine.research.docs_index import LocalDocs
from engine.research.errors import ProviderConfigError
from engine.research.options import ResearchOptions
from engine.research.sources import PageFetcher, SearchProvider

ResearchConfigError = ProviderConfigError
"""The name the web side's module gives its configuration error; callers catch it by this name."""


def build_providers(
    options: ResearchOptions, env: Mapping[str, str], *, docs_dir: Path | None, allow_private_urls: bool
) -> tuple[list[SearchProvider], PageFetcher]:
    """The providers to search, in fallback order, and the fetcher; ``ProviderConfigError`` when none can be used."""
    provider = options.provider or ("docs" if docs_dir is not None else None)
    if provider is None:
        raise ProviderConfigError("research", "no search provider is configured: give --docs DIR or --provider NAME")
    if provider != "docs":
        raise ProviderConfigError(provider, "this build of hive searches only local documents (--provider docs)")
    if docs_dir is None:
        raise ProviderConfigError("docs", "--provider docs needs --docs DIR (the folder to search)")
    if not docs_dir.is_dir():
        raise ProviderConfigError("docs", f"the documents folder {docs_dir} does not exist")
    docs = LocalDocs(docs_dir)
    return [docs], docs
