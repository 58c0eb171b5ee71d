"""The conversation history: OpenAI-format messages, appended to in order, and the compactions of it.

The messages are never rewritten. A compaction records that, from now on, a summary stands for the
first ``through`` messages; ``view()`` is what the model sees (the latest summary, then every message
after it). A recorder (the session file) gets every message and every compaction as it happens, so a
resumed session sees exactly what the model saw.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from msgspec import Struct

from engine.errors import HistoryError
from engine.events import CompactionReason, ToolCall
from engine.model.assembly import parse_tool_call
from engine.model.types import Message

SUMMARY_HEADER = "[Summary of the earlier conversation, which was compacted to fit the context window]"
TOOL_IMAGES_HEADER = "[The images the tool calls above returned]"
"""The first text of the user message that carries a tool round's images (``engine.run.attached_images``)."""


class Compaction(Struct, frozen=True, kw_only=True):
    """A summary that stands for the first ``through`` messages of the history from now on."""

    through: int
    summary: str
    reason: CompactionReason = "manual"


class ConversationRecorder(Protocol):
    """Keeps a record of a conversation as it grows (e.g. the session file)."""

    def append_message(self, message: Message, success: bool | None = None) -> None: ...

    def append_compaction(self, compaction: Compaction) -> None: ...


def summary_message(compaction: Compaction) -> Message:
    """The message that stands for the compacted part of the history."""
    return {"role": "user", "content": f"{SUMMARY_HEADER}\n\n{compaction.summary}"}


def is_summary(message: Message) -> bool:
    """Whether ``message`` is a compaction's summary."""
    content = message.get("content")
    return message.get("role") == "user" and isinstance(content, str) and content.startswith(SUMMARY_HEADER)


def is_tool_images(message: Message) -> bool:
    """Whether ``message`` carries the images of a tool round (not a request from the person)."""
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list) or not content:
        return False
    first = content[0]
    return isinstance(first, dict) and first.get("text") == TOOL_IMAGES_HEADER


class Conversation:
    """An append-only list of messages and compactions; every change goes to the recorders at once."""

    def __init__(self, messages: Iterable[Message] = (), compactions: Iterable[Compaction] = ()) -> None:
        self._messages: list[Message] = list(messages)
        self._compactions: list[Compaction] = list(compactions)
        self._recorders: list[ConversationRecorder] = []

    @property
    def messages(self) -> tuple[Message, ...]:
        """Every message so far, compacted ones included (a snapshot)."""
        return tuple(self._messages)

    @property
    def compactions(self) -> tuple[Compaction, ...]:
        """The compactions so far, oldest first."""
        return tuple(self._compactions)

    def __len__(self) -> int:
        return len(self._messages)

    def view(self) -> tuple[Message, ...]:
        """What the model sees: the latest compaction's summary, then the messages after it."""
        if not self._compactions:
            return tuple(self._messages)
        latest = self._compactions[-1]
        return (summary_message(latest), *self._messages[latest.through :])

    def record_to(self, recorder: ConversationRecorder) -> None:
        """Give ``recorder`` every message and compaction from now on."""
        self._recorders.append(recorder)

    def append(self, message: Message, success: bool | None = None) -> None:
        """Add a message and tell the recorders (with, for a tool result, whether the call worked)."""
        self._messages.append(message)
        for recorder in self._recorders:
            recorder.append_message(message, success)

    def compact(self, through: int, summary: str, reason: CompactionReason = "manual") -> Compaction:
        """Let ``summary`` stand for the first ``through`` messages from now on; tell the recorders.

        ``through`` must leave whole tool rounds: the first message kept cannot be a tool result.
        """
        earlier = self._compactions[-1].through if self._compactions else 0
        if not earlier < through <= len(self._messages):
            raise ValueError(f"cannot compact through message {through}: the history has {len(self)} messages")
        if through < len(self._messages) and self._messages[through].get("role") == "tool":
            raise ValueError(f"cannot compact through message {through}: it would split a tool round")
        compaction = Compaction(through=through, summary=summary, reason=reason)
        self._compactions.append(compaction)
        for recorder in self._recorders:
            recorder.append_compaction(compaction)
        return compaction

    def add_tool_result(self, call_id: str, output: str) -> None:
        """Add the result of a call the host ran (a declared-only tool)."""
        if call_id not in self.unanswered_calls():
            raise HistoryError(f"no tool call {call_id!r} is waiting for a result")
        self.append({"role": "tool", "tool_call_id": call_id, "content": output})

    def waiting_call(self, call_id: str) -> ToolCall:
        """The last assistant message's call ``call_id``, which must still be waiting for its result."""
        if call_id not in self.unanswered_calls():
            raise HistoryError(f"no tool call {call_id!r} is waiting for a result")
        for message in reversed(self._messages):
            for raw in message.get("tool_calls") or ():
                if raw.get("id") == call_id:
                    function = raw.get("function") or {}
                    return parse_tool_call(call_id, str(function.get("name", "")), str(function.get("arguments") or ""))
        raise HistoryError(f"no tool call {call_id!r} in the conversation")

    def answer_unanswered(self, output: str) -> int:
        """Give every call still waiting for a result ``output`` as its result; how many there were."""
        missing = self.unanswered_calls()
        for call_id in missing:
            self.append({"role": "tool", "tool_call_id": call_id, "content": output})
        return len(missing)

    def unanswered_calls(self) -> list[str]:
        """Ids of the last assistant message's tool calls that have no result yet."""
        for index in range(len(self._messages) - 1, -1, -1):
            message = self._messages[index]
            if message.get("role") == "assistant":
                asked = [c["id"] for c in message.get("tool_calls") or ()]
                answered = {m.get("tool_call_id") for m in self._messages[index + 1 :] if m.get("role") == "tool"}
                return [c for c in asked if c not in answered]
        return []

    def check_continuable(self) -> None:
        """Raise ``HistoryError`` unless the history can be continued without a new user message."""
        if not self._messages:
            raise HistoryError("there is no conversation to continue")
        missing = self.unanswered_calls()
        if missing:
            raise HistoryError(f"cannot continue: tool calls without results: {', '.join(missing)}")
        if self._messages[-1].get("role") == "assistant":
            raise HistoryError("cannot continue: the model already answered; send a new message instead")
