"""The todo_write tool: the agent's own checklist for a multi-step task."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from msgspec import Meta

from engine.tools.args import ToolArgs
from engine.tools.base import ArgsTool, ToolContext, ToolResult
from engine.tools.files import plural

TodoStatus = Literal["pending", "in_progress", "completed"]
_MARKS: dict[str, str] = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}


class TodoItem(ToolArgs, frozen=True):
    """One step of the task."""

    content: Annotated[str, Meta(min_length=1, description="What the step is, as a short imperative sentence.")]
    status: Annotated[
        TodoStatus, Meta(description="pending (not started), in_progress (being worked on) or completed.")
    ]
    id: Annotated[str, Meta(description="An optional stable identifier for the step.")] = ""


class TodoStore:
    """Holds the current todo list; each todo_write call replaces it. Hosts read it to show progress."""

    def __init__(self, items: Sequence[TodoItem] = ()) -> None:
        self._items = tuple(items)

    @property
    def items(self) -> tuple[TodoItem, ...]:
        """The current list, in the order the model gave it."""
        return self._items

    def replace(self, items: Sequence[TodoItem]) -> None:
        """Make ``items`` the current list."""
        self._items = tuple(items)

    def open_items(self) -> tuple[TodoItem, ...]:
        """The items not yet completed."""
        return tuple(item for item in self._items if item.status != "completed")


def render_todos(items: Sequence[TodoItem]) -> str:
    """The list as a checklist (``[x]`` done, ``[>]`` in progress, ``[ ]`` pending) with a count summary."""
    if not items:
        return "The todo list is now empty."
    lines = [f"{_MARKS[item.status]} {item.content}" for item in items]
    counts = {status: sum(1 for item in items if item.status == status) for status in _MARKS}
    lines.append(
        f"({plural(len(items), 'item')}: {counts['completed']} completed, "
        f"{counts['in_progress']} in progress, {counts['pending']} pending)"
    )
    if counts["in_progress"] > 1:
        lines.append(
            f"Warning: {counts['in_progress']} items are in progress; keep exactly one in progress at a time "
            "and mark the others pending or completed."
        )
    return "\n".join(lines)


class TodoWriteArgs(ToolArgs, frozen=True):
    todos: Annotated[
        list[TodoItem],
        Meta(
            description="The complete todo list, in order. It replaces the previous list, so include every item, "
            "done ones too."
        ),
    ]


class TodoWriteTool(ArgsTool[TodoWriteArgs]):
    """todo_write: replace the agent's checklist and show it."""

    name = "todo_write"
    description = (
        "Keep a checklist for a task with several steps: send the whole list each time (it replaces the "
        "previous one). Mark a step in_progress when you start it (only one at a time) and completed as soon "
        "as it is done; add steps you discover. Skip it for simple one-step tasks."
    )
    args_model = TodoWriteArgs
    read_only = True

    def __init__(self, store: TodoStore | None = None) -> None:
        """Keep the list in ``store`` (a new, empty one by default)."""
        self.store = store if store is not None else TodoStore()

    async def execute(self, args: TodoWriteArgs, ctx: ToolContext) -> ToolResult:
        self.store.replace(args.todos)
        return ToolResult(render_todos(self.store.items))
