"""The ``tool_retrieval`` section of the settings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ToolRetrievalOptions(BaseModel):
    """Which MCP tools each request offers when there are more than ``max_tools`` of them."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    enabled: bool = True
    max_tools: int = Field(default=40, gt=0)
    """Retrieval starts when more MCP tools than this are available; it then offers about this many."""
    min_relevance_score: float = Field(default=0.3, ge=0, le=1)
    """A tool scoring below this is not offered (unless pinned or already used)."""
    always_include: list[str] = []  # pydantic copies it (default_factory=list costs a signature parse)
    """Tool names (as the model sees them, ``mcp__server__tool``) offered on every request, selected first."""
    min_scored_slots: int = Field(default=10, ge=0)
    """Slots kept for scored tools however many are pinned (capped at ``max_tools``)."""
    embedding_model: str | None = None
    """A litellm embedding model: score tools by cosine similarity to the request instead of by keywords."""
