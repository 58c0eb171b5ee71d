"""The task planner: a plan is an ordered list of short steps, written by the model or taken from the todo list."""

from __future__ import annotations

import re
from collections.abc import Sequence

from msgspec import Struct, field

from engine.errors import RunError
from engine.model.types import ModelClient
from engine.planning.model_call import ask_model
from engine.tools.todo import TodoItem
from engine.usage import Usage

MAX_STEPS = 12
PLANNER_INSTRUCTIONS = """You plan coding tasks. Answer with the plan only: a numbered list of 2 to 8 steps, \
one line each, every step a short imperative sentence that can be done and checked on its own \
("1. Read the parser module", "2. Add the failing test", ...). No preamble, no code, no sub-steps."""

_ITEM = re.compile(r"^\s*(?:(?:\d+|[a-zA-Z])[.)]|[-*+•]|step\s+\d+\s*[:.)-])\s+(?:\[[ xX>]\]\s+)?(.+?)\s*$", re.I)


class PlanningError(RunError):
    """The model's answer held no list of steps."""


class Plan(Struct, frozen=True, kw_only=True):
    """The steps to do, in order."""

    steps: tuple[str, ...]
    done: tuple[str, ...] = ()
    """Steps already done before the plan runs (completed todo items), kept at the top of the checklist."""
    usage: Usage = field(default_factory=Usage)
    """What writing the plan cost (nothing when it came from the todo list)."""


def parse_plan(text: str, max_steps: int = MAX_STEPS) -> tuple[str, ...]:
    """The steps of a list in ``text``: numbered (``1.``, ``2)``), bulleted or checkbox lines, in order.

    Lines that are not list items (a preamble, a closing remark) are left out; markdown emphasis and
    trailing colons are stripped; duplicates are kept once; at most ``max_steps`` steps.
    """
    steps: list[str] = []
    for line in text.splitlines():
        match = _ITEM.match(line)
        if match is None:
            continue
        step = _clean(match.group(1))
        if step and step not in steps:
            steps.append(step)
    return tuple(steps[:max_steps])


def _clean(step: str) -> str:
    step = re.sub(r"(\*\*|__|`)", "", step).strip()
    return step.rstrip(":").strip()


def plan_from_todos(items: Sequence[TodoItem]) -> Plan:
    """The plan the agent wrote as its todo list: the items not yet completed are the steps, in order."""
    steps = tuple(item.content for item in items if item.status != "completed")
    return Plan(steps=steps, done=tuple(item.content for item in items if item.status == "completed"))


class Planner:
    """Asks the model for a plan (one call, no tools)."""

    def __init__(self, client: ModelClient, max_steps: int = MAX_STEPS) -> None:
        self.client = client
        self.max_steps = max_steps

    async def plan(self, task: str, context: str = "") -> Plan:
        """The steps for ``task``; ``context`` (what is known of the project) goes with it.

        Raises ``PlanningError`` when the answer holds no list of steps.
        """
        user = f"Task: {task}" + (f"\n\nWhat is known so far:\n{context}" if context else "")
        reply = await ask_model(self.client, PLANNER_INSTRUCTIONS, user)
        steps = parse_plan(reply.text, self.max_steps)
        if not steps:
            raise PlanningError(f"the model wrote no list of steps for the plan: {reply.text[:200]!r}")
        return Plan(steps=steps, usage=reply.usage)
