"""Token and cost accounting (``Usage``) and session limits. Standard library only."""

from __future__ import annotations

from typing import Any, TypeVar

from msgspec import Struct, field


class Usage(Struct, frozen=True, kw_only=True):
    """Token counts and cost of one or more model calls.

    ``None`` means "not reported" and is kept distinct from zero; adding a reported value to
    an unreported one gives the reported value.
    """

    prompt_tokens: int | None = None
    """Input tokens, cached ones included."""
    completion_tokens: int | None = None
    """Output tokens, reasoning included."""
    cached_read_tokens: int | None = None
    """Prompt tokens served from the provider's cache (part of ``prompt_tokens``)."""
    cache_write_tokens: int | None = None
    """Prompt tokens written to the provider's cache (part of ``prompt_tokens``)."""
    reasoning_tokens: int | None = None
    """Reasoning tokens (part of ``completion_tokens``)."""
    cost_usd: float | None = None
    """Cost in US dollars; ``None`` when the model is not priced."""
    calls: int = 0
    """Number of model calls this usage covers."""
    extra: dict[str, int] = field(default_factory=dict)
    """Other provider-specific counters (e.g. audio tokens), summed by key."""
    estimated: bool = False
    """Some token counts were counted locally because the provider did not report them; a sum with an
    estimated part is estimated."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=_add(self.prompt_tokens, other.prompt_tokens),
            completion_tokens=_add(self.completion_tokens, other.completion_tokens),
            cached_read_tokens=_add(self.cached_read_tokens, other.cached_read_tokens),
            cache_write_tokens=_add(self.cache_write_tokens, other.cache_write_tokens),
            reasoning_tokens=_add(self.reasoning_tokens, other.reasoning_tokens),
            cost_usd=_add(self.cost_usd, other.cost_usd),
            calls=self.calls + other.calls,
            extra=_add_counters(self.extra, other.extra),
            estimated=self.estimated or other.estimated,
        )

    @property
    def total_tokens(self) -> int | None:
        """Prompt plus completion tokens, or None when neither was reported."""
        return _add(self.prompt_tokens, self.completion_tokens)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping; unreported values stay ``None``."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "cached_read_tokens": self.cached_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cost_usd": self.cost_usd,
            "calls": self.calls,
            "estimated": self.estimated,
            **({"extra": dict(self.extra)} if self.extra else {}),
        }


NO_USAGE = Usage()
"""An empty usage (nothing reported), shared to save allocations."""


def _add_counters(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    if not b:
        return a
    if not a:
        return b
    return {key: a.get(key, 0) + b.get(key, 0) for key in a.keys() | b.keys()}


_N = TypeVar("_N", int, float)


def _add(a: _N | None, b: _N | None) -> _N | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


class UsageLimits(Struct, frozen=True, kw_only=True):
    """Budgets for a session. ``None`` means no limit.

    A cost limit can only count priced calls: a model with no known price spends nothing against it.
    """

    max_total_tokens: int | None = None
    max_cost_usd: float | None = None

    def check(self, spent: Usage) -> str | None:
        """Why the next model turn must be refused, or None when it may go ahead."""
        tokens = spent.total_tokens or 0
        if self.max_total_tokens is not None and tokens >= self.max_total_tokens:
            return f"token limit reached: {tokens:,} tokens used of {self.max_total_tokens:,} allowed"
        cost = spent.cost_usd or 0.0
        if self.max_cost_usd is not None and cost >= self.max_cost_usd:
            return f"cost limit reached: ${cost:.4f} spent of ${self.max_cost_usd:.4f} allowed"
        return None

    def after(self, spent: Usage) -> UsageLimits:
        """What is left of these limits once ``spent`` is used (the budget of a run counted into the same session)."""
        tokens = self.max_total_tokens
        cost = self.max_cost_usd
        return UsageLimits(
            max_total_tokens=None if tokens is None else max(tokens - (spent.total_tokens or 0), 0),
            max_cost_usd=None if cost is None else max(cost - (spent.cost_usd or 0.0), 0.0),
        )
