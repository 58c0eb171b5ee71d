"""The ``research`` section of the settings: where ``hive research`` searches and when it stops."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from engine.config.validation import StrictRecord

SearchProvider = Literal["searxng", "tavily", "brave", "duckduckgo", "docs"]
Depth = Literal["quick", "standard", "deep"]


class ResearchOptions(StrictRecord, frozen=True):
    """How a research run searches, and the rules that stop its loop."""

    provider: SearchProvider | None = None
    """The search provider; None picks the first one configured (a key or a URL present)."""
    searxng_url: str | None = None
    """Base URL of a SearXNG instance (``SEARXNG_URL`` in the environment wins)."""
    model: str | None = None
    """The model that plans, reads and writes; the session's model when unset."""
    depth: Depth = "standard"
    """Iterations and queries per iteration: quick (1, 2), standard (3, 3), deep (5, 5)."""
    sufficiency_threshold: Annotated[float, Meta(ge=0, le=1)] = 0.7
    """Stop when the judged sufficiency reaches this score."""
    min_sources_before_report: Annotated[int, Meta(ge=0)] = 5
    """Keep searching while fewer sources than this were collected and a gap remains."""
    max_search_retries_per_iteration: Annotated[int, Meta(ge=0)] = 2
    """Retries (with backoff) of searches that failed with a retryable error, per iteration."""
    max_iterations: Annotated[int, Meta(gt=0)] | None = None
    """Iterations per query; the depth preset caps it when unset."""
    allow_private_urls: bool = False
    """Fetch pages at private and loopback addresses (an intranet wiki, a local server); ``--allow-private-urls``."""
    max_total_tokens: Annotated[int, Meta(gt=0)] | None = None
    """Stop with a partial report once a run has used this many tokens."""
    max_cost_usd: Annotated[float, Meta(gt=0)] | None = None
    """Stop with a partial report once a run has cost this much."""
