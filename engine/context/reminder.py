"""Goal reminders: a long turn of many tool rounds is reminded, in each request, what was asked.

The reminder goes at the end of the request only (the conversation never holds it, and the cached
prefix before it stays the same), quoting the person's latest request verbatim once the turn has
run ``after_rounds`` tool rounds since it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.context.policy import ContextPolicy, PolicyWrapper, PreparedRequest
from engine.conversation import is_summary, is_tool_images
from engine.model.types import Message

MAX_QUOTED = 2_000
"""Characters of the request quoted in a reminder."""
REMINDER_START = "[Reminder from hive, not a new request:"


class GoalReminder(PolicyWrapper):
    """Ends each request of a long turn with a reminder of its request; ``messages`` gives the whole history."""

    def __init__(self, inner: ContextPolicy, messages: Callable[[], Sequence[Message]], after_rounds: int) -> None:
        super().__init__(inner)
        self.messages = messages
        self.after_rounds = after_rounds

    def prepare(self, history: Sequence[Message], tools: Sequence[dict[str, Any]]) -> PreparedRequest:
        request = self.inner.prepare(history, tools)
        reminder = goal_reminder(self.messages(), self.after_rounds) if self.after_rounds else None
        if reminder is None:
            return request
        return PreparedRequest(messages=(*request.messages, reminder), tools=request.tools)


def goal_reminder(messages: Sequence[Message], after_rounds: int) -> Message | None:
    """The reminder for a history whose latest request is ``after_rounds`` tool rounds back or more; else None."""
    rounds = 0
    for message in reversed(messages):
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            rounds += 1
        elif role == "user" and not (is_summary(message) or is_reminder(message) or is_tool_images(message)):
            if rounds < after_rounds or not _after_results(messages[-1]):
                return None
            return {"role": "user", "content": reminder_text(message.get("content"), rounds)}
    return None


def reminder_text(request: object, rounds: int) -> str:
    """What the reminder says: how long the turn has run, and the request it serves."""
    text = request if isinstance(request, str) else str(request)
    if len(text) > MAX_QUOTED:
        text = text[:MAX_QUOTED] + f" … [{len(text) - MAX_QUOTED:,} characters cut]"
    quoted = "\n".join(f"> {line}" for line in text.splitlines() or [""])
    return (
        f"{REMINDER_START} {rounds} tool rounds have run since the person's request. Keep to it; "
        f"when it is done, answer.]\nThe request, verbatim:\n{quoted}"
    )


def is_reminder(message: Message) -> bool:
    """Whether ``message`` is a goal reminder."""
    content = message.get("content")
    return message.get("role") == "user" and isinstance(content, str) and content.startswith(REMINDER_START)


def _after_results(message: Message) -> bool:
    """Whether the history ends with a round's results (its images included)."""
    return message.get("role") == "tool" or is_tool_images(message)
