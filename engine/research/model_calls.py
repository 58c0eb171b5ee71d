"""Every model call of a research run: through the agent's ``ModelClient``, counted per stage, within budget."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import aclosing

from engine.model.types import ModelClient, ModelReply, ModelRequest
from engine.research.events import ResearchEvent, Stage, UsageUpdated
from engine.usage import Usage, UsageLimits


class BudgetSpent(Exception):
    """The token or cost budget is spent: no more model calls (the run ends with a partial report)."""


class ResearchModel:
    """Asks the model one question per call (no tools: research never writes or runs anything)."""

    def __init__(self, client: ModelClient, limits: UsageLimits, emit: Callable[[ResearchEvent], None]) -> None:
        self.client = client
        self.limits = limits
        self.emit = emit
        self.total = Usage()
        self.by_stage: dict[str, Usage] = {}

    def budget_problem(self) -> str | None:
        """Why no further call may be made, or None."""
        return self.limits.check(self.total)

    async def ask(self, stage: Stage, system: str, user: str) -> str:
        """The model's answer to ``user`` under ``system``; raises ``BudgetSpent`` when the budget is gone."""
        problem = self.budget_problem()
        if problem is not None:
            raise BudgetSpent(problem)
        request = ModelRequest(messages=({"role": "system", "content": system}, {"role": "user", "content": user}))
        reply = await self._reply(request)
        self.total = self.total + reply.usage
        self.by_stage[stage] = self.by_stage.get(stage, Usage()) + reply.usage
        self.emit(UsageUpdated(stage=stage, total=self.total))
        return reply.text

    async def _reply(self, request: ModelRequest) -> ModelReply:
        async with aclosing(self.client.stream(request)) as stream:
            async for item in stream:
                if isinstance(item, ModelReply):
                    return item
        raise RuntimeError("the model stream ended without a reply")
