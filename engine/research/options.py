"""The ``research`` section of the settings: where ``hive research`` searches and when it stops."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SearchProvider = Literal["searxng", "tavily", "brave", "duckduckgo", "docs"]
Depth = Literal["quick", "standard", "deep"]


class ResearchOptions(BaseModel):
    """How a research run searches, and the rules that stop its loop."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    provider: SearchProvider | None = None
    """The search provider; None picks the first one configured (a key or a URL present)."""
    searxng_url: str | None = None
    """Base URL of a SearXNG instance (``SEARXNG_URL`` in the environment wins)."""
    model: str | None = None
    """The model that plans, reads and writes; the session's model when unset."""
    depth: Depth = "standard"
    sufficiency_threshold: float = Field(default=0.7, ge=0, le=1)
    """Stop when the judged sufficiency reaches this score."""
    min_sources_before_report: int = Field(default=5, ge=0)
    """Keep searching while fewer sources than this were collected and a gap remains."""
    max_search_retries_per_iteration: int = Field(default=2, ge=0)
    max_iterations: int | None = Field(default=None, gt=0)
    """Iterations per query; the depth preset caps it when unset."""
    allow_private_urls: bool = False
    """Fetch pages at private and loopback addresses (an intranet wiki, a local server); ``--allow-private-urls``."""
    max_total_tokens: int | None = Field(default=None, gt=0)
    max_cost_usd: float | None = Field(default=None, gt=0)
