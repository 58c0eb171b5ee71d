"""The ``context`` section of the settings: the window, compaction and observation masking."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from engine.config.validation import StrictRecord


class ContextOptions(StrictRecord, frozen=True):
    """How the history is fitted into the model's window."""

    context_window: Annotated[int, Meta(gt=0)] | None = None
    """The window in tokens; when unset, litellm's model table, or ``guessed_window`` for a model it does not know."""
    guessed_window: Annotated[int, Meta(gt=0)] = 32_768
    """The window assumed for a model nobody knows the window of (no setting, not in litellm's model table, its
    server does not say): 32k, the window local models are most often served with."""
    unknown_window_compaction: Literal["defer_until_overflow", "at_guess"] = "defer_until_overflow"
    """For a guessed window: wait for the provider's first overflow error, then compact and learn the window it
    names (``defer_until_overflow``), or compact at ``compact_at`` of ``guessed_window`` as for a known one
    (``at_guess``)."""
    fixed_part_share: Annotated[float, Meta(gt=0, lt=1)] = 0.4
    """When the instructions and tool schemas take more than this share of a known window, hive shrinks them:
    compact tool schemas, then fewer tools, then shorter instructions (a small local model's window)."""
    compact_at: Annotated[float, Meta(gt=0, le=1)] = 0.92
    """Compact when a request would fill this share of the window."""
    observation_masking_protected_rounds: Annotated[int, Meta(ge=0)] = 10
    """Tool results of this many latest tool rounds are always sent whole."""
    observation_masking_batch_rounds: Annotated[int, Meta(gt=0)] = 5
    """Older rounds are masked this many at a time, so a provider's prompt cache (or a local server's reused
    prefix) stays valid between batches instead of breaking at every round."""
    observation_masking_min_chars: Annotated[int, Meta(ge=0)] = 1_000
    """Tool results of at most this many characters are never masked: a placeholder saves little on them, and a
    model that needs one again spends a ``recall_result`` round (measured: ``benchmarks/masking_threshold.py``)."""
    prompt_caching: bool = True
    """Mark cache breakpoints where the provider supports prompt caching."""
    goal_reminder_after_rounds: Annotated[int, Meta(ge=0)] = 10
    """A turn this many tool rounds long ends each request with the person's request again (0: never)."""
    max_tool_result_chars: Annotated[int, Meta(gt=0)] = 100_000
    """A tool result longer than this (or than a quarter of the window) is cut to head and tail on entry."""
