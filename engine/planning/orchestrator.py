"""Plan and execute: for each step, run it, judge it, tick it off; a failed step is tried once more, then the plan stops.

``PlanAndExecute.execute`` yields the loop's events of every step's run with ``StepStarted`` and
``StepFinished`` around them, and ends with ``PlanFinished``. A cancelled step, a spent usage budget or
a provider error stops the plan at once (trying again would not help).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from msgspec import Struct

from engine.events import Event, RunFinished, RunResult
from engine.planning.evaluator import Evaluator, HeuristicEvaluator, StepVerdict
from engine.planning.events import PlanEvent, PlanFinished, StepFinished, StepStarted
from engine.planning.executor import StepExecutor, StepRunner
from engine.planning.planner import Plan, Planner
from engine.tools.todo import TodoStore

NOT_RETRIED = frozenset({"cancelled", "usage_limit", "error"})
"""Exit reasons after which the same step is not tried again."""


class _Attempt(Struct, frozen=True, kw_only=True):
    verdict: StepVerdict
    exit_reason: str


class PlanAndExecute:
    """Runs a plan's steps through ``runner``, keeping ``todos`` as the checklist."""

    def __init__(
        self,
        runner: StepRunner,
        todos: TodoStore,
        *,
        evaluator: Evaluator | None = None,
        planner: Planner | None = None,
        retries: int = 1,
    ) -> None:
        self.runner = runner
        self.todos = todos
        self.evaluator: Evaluator = evaluator or HeuristicEvaluator()
        self.planner = planner
        self.retries = retries

    async def run(self, task: str) -> AsyncGenerator[Event | PlanEvent, None]:
        """Ask the planner for the steps of ``task``, then execute them."""
        if self.planner is None:
            raise ValueError("a plan-and-execute run of a task needs a planner")
        plan = await self.planner.plan(task)
        async with aclosing(self.execute(plan)) as events:
            async for event in events:
                yield event

    async def execute(self, plan: Plan) -> AsyncGenerator[Event | PlanEvent, None]:
        """Execute ``plan`` step by step; ``PlanFinished`` last."""
        executor = StepExecutor(self.runner, self.todos, plan)
        for index in range(len(plan.steps)):
            attempt = None
            async with aclosing(self._step(executor, index)) as events:
                async for event in events:
                    if isinstance(event, _Attempt):
                        attempt = event
                    else:
                        yield event
            assert attempt is not None
            if not attempt.verdict.ok:
                yield _stopped(plan, index, attempt)
                return
        total = len(plan.steps)
        yield PlanFinished(completed=total, total=total, report=f"Plan done: {total} of {total} steps.")

    async def _step(self, executor: StepExecutor, index: int) -> AsyncGenerator[Event | PlanEvent | _Attempt, None]:
        """Step ``index`` with its retries: its events, then the last attempt's ``_Attempt``."""
        step, total, reason = executor.plan.steps[index], executor.total, ""
        for attempt in range(1, self.retries + 2):
            yield StepStarted(number=index + 1, total=total, content=step, attempt=attempt)
            result = None
            async with aclosing(executor.run(index, reason)) as events:
                async for event in events:
                    if isinstance(event, RunFinished):
                        result = event.result
                    yield event
            assert result is not None, "a run always ends with RunFinished"
            verdict = await self._judge(step, result)
            retry = not verdict.ok and attempt <= self.retries and result.exit_reason not in NOT_RETRIED
            executor.mark(index, "completed" if verdict.ok else "pending")
            yield StepFinished(
                number=index + 1,
                total=total,
                content=step,
                ok=verdict.ok,
                reason=verdict.reason,
                attempt=attempt,
                will_retry=retry,
            )
            if not retry:
                yield _Attempt(verdict=verdict, exit_reason=result.exit_reason)
                return
            reason = verdict.reason

    async def _judge(self, step: str, result: RunResult) -> StepVerdict:
        if result.exit_reason == "cancelled":
            return StepVerdict(ok=False, reason="cancelled by the user")
        return await self.evaluator.evaluate(step, result)


def _stopped(plan: Plan, index: int, attempt: _Attempt) -> PlanFinished:
    """The end of a plan that stopped at step ``index``."""
    total, step = len(plan.steps), plan.steps[index]
    done = f"{index} of {total} step{'' if total == 1 else 's'} done"
    if attempt.exit_reason == "cancelled":
        report = f"Plan cancelled at step {index + 1} of {total} ({step}); {done}."
        return PlanFinished(completed=index, total=total, failed_step=index + 1, cancelled=True, report=report)
    report = f"Plan stopped at step {index + 1} of {total} ({step}): {attempt.verdict.reason}. {done}."
    return PlanFinished(completed=index, total=total, failed_step=index + 1, report=report)
