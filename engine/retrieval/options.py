"""The ``tool_retrieval`` section of the settings."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from engine.config.validation import StrictRecord


class ToolRetrievalOptions(StrictRecord, frozen=True):
    """Which MCP tools and agents each request offers when there are more than ``max_tools`` of them."""

    enabled: bool = True
    """Offer only the MCP tools and agents that fit the request once there are more than ``max_tools``."""
    max_tools: Annotated[int, Meta(gt=0)] = 40
    """Retrieval starts when more MCP tools and agents than this are available; it then offers about this many."""
    min_relevance_score: Annotated[float, Meta(ge=0, le=1)] = 0.3
    """A tool scoring below this is not offered (unless pinned or already used)."""
    always_include: tuple[str, ...] = ()
    """Tool names (as the model sees them, ``mcp__server__tool`` or ``agent_name``) offered on every request, first."""
    min_scored_slots: Annotated[int, Meta(ge=0)] = 10
    """Slots kept for scored tools however many are pinned (capped at ``max_tools``)."""
    embedding_model: str | None = None
    """A litellm embedding model: score tools by cosine similarity to the request instead of by keywords."""
