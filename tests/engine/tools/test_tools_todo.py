from __future__ import annotations

from collections.abc import Callable

from engine.tools.base import ToolResult
from engine.tools.todo import TodoItem, TodoStore, TodoWriteTool

Call = Callable[..., ToolResult]

TODOS = [
    {"content": "Read the failing test", "status": "completed"},
    {"content": "Fix the parser", "status": "in_progress", "id": "parser"},
    {"content": "Run the whole suite", "status": "pending"},
]


def test_todo_write_renders_a_checklist_with_a_summary(call: Call) -> None:
    result = call(TodoWriteTool(), todos=TODOS)
    assert result.success is True
    assert result.output.splitlines() == [
        "[x] Read the failing test",
        "[>] Fix the parser",
        "[ ] Run the whole suite",
        "(3 items: 1 completed, 1 in progress, 1 pending)",
    ]


def test_each_call_replaces_the_list_in_the_store(call: Call) -> None:
    store = TodoStore()
    tool = TodoWriteTool(store)
    call(tool, todos=TODOS)
    call(tool, todos=[{"content": "Ship it", "status": "pending"}])
    assert store.items == (TodoItem(content="Ship it", status="pending"),)
    assert store.open_items() == store.items


def test_more_than_one_item_in_progress_is_a_warning_not_an_error(call: Call) -> None:
    result = call(TodoWriteTool(), todos=[{"content": c, "status": "in_progress"} for c in ("a", "b")])
    assert result.success is True
    assert result.output.splitlines()[-1].startswith("Warning: 2 items are in progress")


def test_an_unknown_status_is_an_invalid_argument(call: Call) -> None:
    store = TodoStore()
    result = call(TodoWriteTool(store), todos=[{"content": "x", "status": "done"}])
    assert result.success is False
    assert result.output.startswith("Invalid arguments for todo_write: todos.0.status:")
    assert store.items == ()


def test_an_empty_list_clears_the_todos(call: Call) -> None:
    store = TodoStore([TodoItem(content="old", status="pending")])
    assert call(TodoWriteTool(store), todos=[]).output == "The todo list is now empty."
    assert store.items == ()
