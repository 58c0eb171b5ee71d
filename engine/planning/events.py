"""What a plan-and-execute run tells its host between the loop's own events: a closed union of small events.

The orchestrator yields these interleaved with the ordinary ``engine.events`` of each step's run; the
last item is always ``PlanFinished``.
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from engine.events import ROOT_AGENT


class StepStarted(Struct, frozen=True, kw_only=True):
    """Step ``number`` of ``total`` began (``attempt`` 2 is the one retry of a failed step)."""

    kind: Literal["plan_step_started"] = "plan_step_started"
    number: int
    """1-based position of the step in the plan."""
    total: int
    content: str
    attempt: int = 1
    agent: str = ROOT_AGENT


class StepFinished(Struct, frozen=True, kw_only=True):
    """Step ``number`` ended: done (its todo item is ticked off) or not, with the evaluator's reason."""

    kind: Literal["plan_step_finished"] = "plan_step_finished"
    number: int
    total: int
    content: str
    ok: bool
    reason: str
    """Why the evaluator judged the step so (empty when it simply completed)."""
    attempt: int = 1
    will_retry: bool = False
    """True when the step failed and is about to be tried once more."""
    agent: str = ROOT_AGENT


class PlanFinished(Struct, frozen=True, kw_only=True):
    """The plan ended: every step done, or stopped at ``failed_step`` with a report saying why."""

    kind: Literal["plan_finished"] = "plan_finished"
    completed: int
    """How many steps are done."""
    total: int
    failed_step: int | None = None
    """The 1-based step the plan stopped at, or None when every step was done."""
    cancelled: bool = False
    """The person cancelled the step in progress."""
    report: str
    """One or two lines for the person: what was done and, when it stopped, where and why."""
    agent: str = ROOT_AGENT

    @property
    def ok(self) -> bool:
        """Whether every step was done."""
        return self.completed == self.total


PlanEvent = StepStarted | StepFinished | PlanFinished
"""What the orchestrator adds to the loop's event stream."""
