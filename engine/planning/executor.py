"""The executor: runs one step of a plan through the agent loop and keeps the todo list in step with the plan.

Each step goes to the loop as a user message ("Step 2 of 4: ..."), so the step's work, its tool calls
and its approvals are those of an ordinary request. The checklist is the executor's to keep while a
plan runs: it is rewritten from the plan after every change, so the person sees items ticked off.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Protocol

from engine.events import Event
from engine.planning.planner import Plan
from engine.tools.todo import TodoItem, TodoStatus, TodoStore


class StepRunner(Protocol):
    """What runs a step: a ``Session`` or an ``AgentLoop``."""

    def run_streaming(self, prompt: str) -> AsyncIterator[Event]:
        """Add ``prompt`` as a user message and run; events, ``RunFinished`` last."""
        ...


class StepExecutor:
    """Runs the steps of ``plan`` one at a time through ``runner``, writing their progress to ``todos``."""

    def __init__(self, runner: StepRunner, todos: TodoStore, plan: Plan) -> None:
        self.runner = runner
        self.todos = todos
        self.plan = plan
        self._status: list[TodoStatus] = ["pending"] * len(plan.steps)
        self._write()

    @property
    def total(self) -> int:
        """How many steps the plan has."""
        return len(self.plan.steps)

    def mark(self, index: int, status: TodoStatus) -> None:
        """Set the status of step ``index`` (0-based) and show it in the todo list."""
        self._status[index] = status
        self._write()

    async def run(self, index: int, retry_reason: str = "") -> AsyncGenerator[Event, None]:
        """Mark step ``index`` in progress and run it; ``retry_reason`` says why the last attempt failed."""
        self.mark(index, "in_progress")
        stream = self.runner.run_streaming(self.prompt(index, retry_reason))
        try:
            async for event in stream:
                yield event
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:  # the run's own clean-up, when the consumer stops early
                await close()

    def prompt(self, index: int, retry_reason: str = "") -> str:
        """The user message that asks for step ``index``."""
        step = self.plan.steps[index]
        lines = [f"Step {index + 1} of {self.total}: {step}", ""]
        if retry_reason:
            lines += [f"The previous attempt at this step did not succeed ({retry_reason}). Try it again.", ""]
        lines += [
            "Do this step now, and only this one. hive keeps the plan's checklist, so do not call todo_write. "
            "When the step is done, say so in one sentence; if you cannot do it, say why.",
            "",
            "The approved plan:",
            *_numbered(self.plan.steps),
        ]
        return "\n".join(lines)

    def _write(self) -> None:
        done = [TodoItem(content=step, status="completed") for step in self.plan.done]
        steps = [TodoItem(content=s, status=status) for s, status in zip(self.plan.steps, self._status, strict=True)]
        self.todos.replace([*done, *steps])


def _numbered(steps: Sequence[str]) -> list[str]:
    return [f"{number}. {step}" for number, step in enumerate(steps, start=1)]
