"""Plan mode's checklist, approved and executed: the todo list the agent wrote becomes the steps hive runs.

After a plan-mode request whose run wrote a todo list, the list is shown with one question: y executes
it (hive switches to work mode and runs the steps one by one, ticking items off as they finish), n
keeps planning (the next request refines the plan). Ctrl-C during a step cancels it and stops the plan.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, assert_never

from prompt_toolkit.formatted_text import HTML
from rich.text import Text

from engine.events import RunFinished, RunResult
from engine.planning.events import PlanEvent, PlanFinished, StepFinished, StepStarted
from engine.planning.orchestrator import PlanAndExecute
from engine.planning.planner import Plan, plan_from_todos
from engine.tools.todo import render_todos
from hive_cli.interrupts import cancel_on_ctrl_c
from hive_cli.repl.approver import answer_keys, ask_key

if TYPE_CHECKING:
    from engine.session import Session
    from hive_cli.repl.state import ReplState
    from hive_cli.repl.view import ReplView

QUESTION = HTML(
    "  <ansimagenta><b>waiting for you</b></ansimagenta> · Approve this plan? "
    "<b>y</b> execute · <b>n</b> keep planning "
)


def written_plan(session: Session, result: RunResult) -> Plan | None:
    """The plan the run wrote as its todo list (with steps still to do), or None when it wrote none."""
    wrote = any(o.call.name == "todo_write" and o.success for o in result.tool_outcomes)
    if not wrote:
        return None
    plan = plan_from_todos(session.agent.todos.items)
    return plan if plan.steps else None


async def offer_plan(state: ReplState, view: ReplView, session: Session, plan: Plan) -> None:
    """Show the checklist and ask; on approval switch to work mode and execute it."""
    view.print(Text(render_todos(session.agent.todos.items), style="bold"))
    if not await _approved():
        view.print(Text("Keep planning: say what to change, or /work to leave plan mode.", style="dim"))
        return
    state.choose_mode("work")
    view.print(Text("mode: work (executing the plan step by step)", style="dim"))
    await execute_plan(state, session, view, plan)


async def execute_plan(state: ReplState, session: Session, view: ReplView, plan: Plan) -> None:
    """Run ``plan`` through the session, showing each step's run and the checklist as items are ticked off."""
    orchestrator = PlanAndExecute(session, session.agent.todos)
    try:
        with cancel_on_ctrl_c(asyncio.get_running_loop(), session.cancel):
            async for event in orchestrator.execute(plan):
                if isinstance(event, StepStarted | StepFinished | PlanFinished):
                    _show(view, session, event)
                else:
                    view.handle(event)
                    if isinstance(event, RunFinished):
                        state.last_result = event.result  # /cost reports the last step's run
    finally:
        view.pause()


def _show(view: ReplView, session: Session, event: PlanEvent) -> None:
    match event:
        case StepStarted():
            again = " (once more)" if event.attempt > 1 else ""
            view.print(Text(f"▸ Step {event.number} of {event.total}{again}: {event.content}", style="bold cyan"))
        case StepFinished():
            if event.ok:
                view.print(Text(render_todos(session.agent.todos.items), style="dim"))
            else:
                then = "; trying once more" if event.will_retry else ""
                view.print(Text(f"  ✗ step {event.number} not done: {event.reason}{then}", style="yellow"))
        case PlanFinished():
            view.print(Text(("✓ " if event.ok else "✗ ") + event.report, style="green" if event.ok else "red"))
        case _:
            assert_never(event)


async def _approved() -> bool:
    keys = answer_keys({"y": "yes", "n": "no", "escape": "no", "c-c": "no"}, interrupt=False)
    return await ask_key(QUESTION, keys) == "yes"
