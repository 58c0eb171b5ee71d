"""The ``context`` section of the settings: the window, compaction and observation masking."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ContextOptions(BaseModel):
    """How the history is fitted into the model's window."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    context_window: int | None = Field(default=None, gt=0)
    """The window in tokens; when unset, litellm's model table, or a 32k guess for a model it does not know."""
    compact_at: float = Field(default=0.92, gt=0, le=1)
    """Compact when a request would fill this share of the window."""
    observation_masking_protected_rounds: int = Field(default=10, ge=0)
    """Tool results of this many latest tool rounds are always sent whole."""
    observation_masking_batch_rounds: int = Field(default=5, gt=0)
    """Older rounds are masked this many at a time, so a provider's prompt cache (or a local server's reused
    prefix) stays valid between batches instead of breaking at every round."""
    prompt_caching: bool = True
    """Mark cache breakpoints where the provider supports prompt caching."""
    goal_reminder_after_rounds: int = Field(default=10, ge=0)
    """A turn this many tool rounds long ends each request with the person's request again (0: never)."""
    max_tool_result_chars: int = Field(default=100_000, gt=0)
    """A tool result longer than this (or than a quarter of the window) is cut to head and tail on entry."""
