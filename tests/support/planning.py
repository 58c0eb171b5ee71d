"""The planning turn the plan tests share: a two-step todo list, then the plan's text."""

from __future__ import annotations

from tests.support.llm_server import Completion, call, text, tool_calls

TODOS = [
    {"content": "Write notes.txt", "status": "pending"},
    {"content": "Summarise the notes", "status": "pending"},
]


def planning_replies() -> tuple[Completion, Completion]:
    """The model's replies while planning: it writes TODOS as its todo list, then says the plan is ready."""
    return tool_calls(call("todo_write", {"todos": TODOS})), text("Here is the plan.")
