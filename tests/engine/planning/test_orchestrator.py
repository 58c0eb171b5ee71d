"""Plan and execute through a real session: the todo list written in plan mode, approved, run step by step."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.config.loader import Overrides, load_config
from engine.events import Event, ToolCallStarted
from engine.planning.events import PlanEvent, PlanFinished, StepFinished, StepStarted
from engine.planning.orchestrator import PlanAndExecute
from engine.planning.planner import Plan, Planner, plan_from_todos
from engine.policy.gate import ApproveEverything
from engine.session import Session
from engine.session_open import open_session
from tests.support.agents import client_for, collect
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.planning import planning_replies
from tests.support.processes import gone_within, unique_sleep


def open_for(server: LLMServer, cwd: Path) -> Session:
    config = load_config(cwd, Overrides(model="openai/test-model", api_base=server.base_url, api_key="sk-test"))
    return asyncio.run(open_session(config, approver=ApproveEverything()))


def plan_events(events: list[Event | PlanEvent]) -> list[str]:
    """The plan's own events, as "kind number attempt"."""
    return [
        f"{e.kind} {e.number} {e.attempt}" if isinstance(e, StepStarted | StepFinished) else e.kind
        for e in events
        if isinstance(e, StepStarted | StepFinished | PlanFinished)
    ]


def execute(
    orchestrator: PlanAndExecute, session: Session, seen: list[list[str]] | None = None
) -> list[Event | PlanEvent]:
    """Every event of the plan's execution; ``seen`` gets the todo statuses as each step finished."""

    async def run() -> list[Event | PlanEvent]:
        events: list[Event | PlanEvent] = []
        try:
            async for event in orchestrator.execute(plan_from_todos(session.agent.todos.items)):
                events.append(event)
                if isinstance(event, StepFinished) and seen is not None:
                    seen.append([item.status for item in session.agent.todos.items])
            return events
        finally:
            await session.close()

    return asyncio.run(run())


def planned(session: Session) -> None:
    """The agent, in plan mode, writes the checklist."""
    session.set_mode("plan")
    asyncio.run(collect(session.run_streaming("plan the notes")))
    session.set_mode("work")


def test_a_plan_approved_and_executed_ticks_off_every_step(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        *planning_replies(),
        tool_calls(call("write_file", {"path": "notes.txt", "content": "notes\n"})),
        text("Wrote notes.txt."),
        text("The notes say: notes."),
    )
    session = open_for(llm_server, tmp_path)
    planned(session)
    seen: list[list[str]] = []
    events = execute(PlanAndExecute(session, session.agent.todos), session, seen)

    assert seen == [["completed", "pending"], ["completed", "completed"]]  # ticked off as each step finishes
    assert plan_events(events) == [
        "plan_step_started 1 1",
        "plan_step_finished 1 1",
        "plan_step_started 2 1",
        "plan_step_finished 2 1",
        "plan_finished",
    ]
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.ok and finished.report == "Plan done: 2 of 2 steps."
    assert (tmp_path / "notes.txt").read_text() == "notes\n"
    assert [(i.content, i.status) for i in session.agent.todos.items] == [
        ("Write notes.txt", "completed"),
        ("Summarise the notes", "completed"),
    ]
    step_two = llm_server.chat_requests[4].messages
    assert step_two[-1]["content"].startswith("Step 2 of 2: Summarise the notes")
    assert any(m["role"] == "user" and m["content"].startswith("Step 1 of 2: Write notes.txt") for m in step_two)


def test_a_failed_step_is_tried_once_more_then_the_plan_stops_with_a_report(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(
        *planning_replies(),
        text("I cannot write files here."),
        text("I still cannot write files here."),
    )
    session = open_for(llm_server, tmp_path)
    planned(session)
    events = execute(PlanAndExecute(session, session.agent.todos), session)

    assert plan_events(events) == [
        "plan_step_started 1 1",
        "plan_step_finished 1 1",
        "plan_step_started 1 2",
        "plan_step_finished 1 2",
        "plan_finished",
    ]
    first_try = next(e for e in events if isinstance(e, StepFinished))
    assert first_try.will_retry and not first_try.ok
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.failed_step == 1 and finished.completed == 0
    assert finished.report == (
        'Plan stopped at step 1 of 2 (Write notes.txt): the model said "I still cannot write files here". '
        "0 of 2 steps done."
    )
    assert "The previous attempt at this step did not succeed" in llm_server.chat_requests[3].messages[-1]["content"]
    assert [i.status for i in session.agent.todos.items] == ["pending", "pending"]
    assert llm_server.remaining == 0


def test_a_retried_step_that_works_lets_the_plan_go_on(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        *planning_replies(),
        text("I could not decide on the wording."),
        text("Wrote it after all."),
        text("Summarised."),
    )
    session = open_for(llm_server, tmp_path)
    planned(session)
    events = execute(PlanAndExecute(session, session.agent.todos), session)
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.ok
    assert plan_events(events).count("plan_step_started 1 2") == 1


def test_a_task_is_planned_by_the_model_then_executed(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("1. Look at the files\n2. Report"), text("Looked."), text("Reported."))
    session = open_for(llm_server, tmp_path)
    orchestrator = PlanAndExecute(session, session.agent.todos, planner=Planner(client_for(llm_server)))

    async def collected() -> list[Event | PlanEvent]:
        try:
            return await collect(orchestrator.run("tidy up"))
        finally:
            await session.close()

    events = asyncio.run(collected())
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.ok and finished.total == 2
    assert [i.content for i in session.agent.todos.items] == ["Look at the files", "Report"]


def test_a_cancelled_step_stops_the_plan_at_once_without_a_retry(llm_server: LLMServer, tmp_path: Path) -> None:
    sleep = unique_sleep()
    llm_server.script(tool_calls(call("execute_command", {"command": sleep})), text("unused"))
    session = open_for(llm_server, tmp_path)

    async def run() -> list[Event | PlanEvent]:
        events: list[Event | PlanEvent] = []
        try:
            async for event in PlanAndExecute(session, session.agent.todos).execute(Plan(steps=("Wait", "Never"))):
                events.append(event)
                if isinstance(event, ToolCallStarted):
                    session.cancel()
            return events
        finally:
            await session.close()

    events = asyncio.run(run())
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.cancelled and finished.failed_step == 1
    assert plan_events(events) == ["plan_step_started 1 1", "plan_step_finished 1 1", "plan_finished"]
    assert llm_server.remaining == 1 and gone_within(sleep, 5)
