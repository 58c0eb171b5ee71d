"""``hive run --plan``: the model writes a plan of steps, then hive runs them one by one (text output only).

The plan and each step's progress go to stderr next to the tool log; each step's answer streams to
stdout as an ordinary run's does, followed by that step's usage line. What writing the plan cost is said
with the plan, and the total (the plan and every step) comes last.
"""

from __future__ import annotations

import asyncio
import time

from engine.events import ExitReason, RunFinished, RunResult
from engine.planning.events import PlanFinished, StepFinished, StepStarted
from engine.planning.orchestrator import PlanAndExecute
from engine.planning.planner import Planner
from engine.session import Session
from hive_cli.interrupts import Ending, cancel_on_ctrl_c
from hive_cli.output import Renderer
from hive_cli.output.summaries import cost_text, run_usage, tokens_text, usage_summary
from hive_cli.terminal_text import echo


async def drive_plan(
    session: Session, task: str, renderer: Renderer, ending: Ending, exit_codes: dict[ExitReason, int]
) -> int:
    """Plan ``task``, execute the plan; the exit status (0 when every step was done)."""
    began = started = time.monotonic()
    plan = await Planner(session.client).plan(task)
    numbered = [f"{n}. {step}" for n, step in enumerate(plan.steps, start=1)]
    session.add_exchange(f"Plan this task: {task}", "\n".join(numbered), plan.usage)  # the steps see the task
    _log("hive: plan:", *(f"  {line}" for line in numbered))
    _log(f"hive: planning: tokens {tokens_text(plan.usage)} · cost {cost_text(plan.usage)}")
    loop = asyncio.get_running_loop()
    last: RunResult | None = None
    finished: PlanFinished | None = None
    spent, calls = plan.usage, 0
    with cancel_on_ctrl_c(loop, session.cancel), ending.caught(loop, session.cancel):
        async for event in PlanAndExecute(session, session.agent.todos).execute(plan):
            match event:
                case StepStarted():
                    again = " (once more)" if event.attempt > 1 else ""
                    _log(f"hive: step {event.number} of {event.total}{again}: {event.content}")
                    started = time.monotonic()
                case StepFinished(ok=False):
                    _log(f"hive: step {event.number} not done: {event.reason}")
                case StepFinished():
                    pass
                case PlanFinished():
                    finished = event
                case RunFinished():
                    last = event.result
                    spent, calls = spent + run_usage(last), calls + len(last.tool_outcomes)
                    renderer.handle(event)
                    renderer.finish(event.result, time.monotonic() - started)
                case _:
                    renderer.handle(event)
    assert finished is not None
    _log(f"hive: {finished.report}", f"hive: total: {usage_summary(spent, calls, time.monotonic() - began)}")
    if finished.ok:
        return 0
    reason = last.exit_reason if last is not None else "error"
    return exit_codes[reason] if reason != "completed" else 1


def _log(*lines: str) -> None:
    echo("".join(line + "\n" for line in lines), err=True, nl=False)
