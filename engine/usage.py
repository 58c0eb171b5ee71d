"""Session usage limits: a model turn past the budget is refused with a clear error."""

from __future__ import annotations

from dataclasses import dataclass

from engine.events import Usage


@dataclass(frozen=True, kw_only=True)
class UsageLimits:
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
