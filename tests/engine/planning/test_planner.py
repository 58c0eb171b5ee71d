"""The planner: a list of steps parsed from the model's answer, or taken from the agent's todo list."""

from __future__ import annotations

import asyncio

import pytest

from engine.errors import ProviderError
from engine.planning.planner import Plan, Planner, PlanningError, parse_plan, plan_from_todos
from engine.tools.todo import TodoItem
from tests.support.agents import FAST_RETRY, client_for
from tests.support.llm_server import LLMServer, server_error, text


def test_numbered_bulleted_and_checkbox_lines_become_steps_and_the_rest_is_left_out() -> None:
    answer = """Here is my plan:

1. **Read** the `parser` module:
2) Add a failing test
- [ ] Fix the bug
* Run the tests
Step 5: Update the changelog
- Fix the bug

Let me know if that works."""
    assert parse_plan(answer) == (
        "Read the parser module",
        "Add a failing test",
        "Fix the bug",
        "Run the tests",
        "Update the changelog",
    )


def test_a_plan_is_cut_at_the_most_steps_allowed() -> None:
    assert parse_plan("\n".join(f"{n}. step {n}" for n in range(1, 30)), max_steps=3) == ("step 1", "step 2", "step 3")


def test_the_todo_list_gives_its_open_items_as_steps_and_keeps_the_done_ones_apart() -> None:
    items = [
        TodoItem(content="Look around", status="completed"),
        TodoItem(content="Write the test", status="pending"),
        TodoItem(content="Fix it", status="in_progress"),
    ]
    assert plan_from_todos(items) == Plan(steps=("Write the test", "Fix it"), done=("Look around",))


def test_the_planner_asks_the_model_once_without_tools_and_parses_its_list(llm_server: LLMServer) -> None:
    llm_server.script(text("1. Read a.py\n2. Add the option\n3. Document it"))
    plan = asyncio.run(Planner(client_for(llm_server)).plan("add a --fast option", context="a.py parses flags"))
    assert plan.steps == ("Read a.py", "Add the option", "Document it")
    assert plan.usage.calls == 1
    request = llm_server.chat_requests[0]
    assert "tools" not in request.json and request.messages[0]["role"] == "system"
    assert (
        "add a --fast option" in request.messages[1]["content"]
        and "a.py parses flags" in request.messages[1]["content"]
    )


def test_an_answer_without_a_list_is_a_planning_error(llm_server: LLMServer) -> None:
    llm_server.script(text("I would just do it."))
    with pytest.raises(PlanningError):
        asyncio.run(Planner(client_for(llm_server)).plan("do it"))


def test_a_refused_plan_is_read_as_it_came_and_a_failed_call_fails_the_planning(llm_server: LLMServer) -> None:
    llm_server.script(text("1. Read a.py\n2. Stop here", finish_reason="content_filter"))
    refused = asyncio.run(Planner(client_for(llm_server)).plan("do it"))
    assert refused.steps == ("Read a.py", "Stop here")

    llm_server.script(*[server_error(500, "the GPU caught fire")] * FAST_RETRY.max_attempts)
    with pytest.raises(ProviderError, match="the GPU caught fire") as caught:
        asyncio.run(Planner(client_for(llm_server)).plan("do it"))
    assert not isinstance(caught.value, PlanningError)
