"""Every model call of a research run: through the agent's ``ModelClient``, counted per stage, within budget."""

from __future__ import annotations

from collections.abc import Callable

from engine.model.completion import ModelCallFailed, UsageSink, complete
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
        reply = await self._reply(request, lambda usage: self._count(stage, usage))
        return reply.text

    def _count(self, stage: Stage, usage: Usage) -> None:
        self.total = self.total + usage
        self.by_stage[stage] = self.by_stage.get(stage, Usage()) + usage
        self.emit(UsageUpdated(stage=stage, total=self.total))

    async def _reply(self, request: ModelRequest, count: UsageSink) -> ModelReply:
        """The reply, usable or not (a refused, empty or cut one is read as it is); a failed call raises."""
        try:
            return await complete(self.client, request, count=count)
        except ModelCallFailed as failed:
            if failed.kind == "no_reply":
                raise RuntimeError(str(failed)) from None  # as before: shown as an internal error
            if failed.reply is None:
                raise
            return failed.reply
