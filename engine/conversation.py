"""The conversation history: OpenAI-format messages, appended to in order, with listeners (e.g. the session file)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.errors import HistoryError
from engine.events import ToolCall
from engine.model.assembly import parse_tool_call
from engine.model.types import Message

MessageListener = Callable[[Message], None]


class Conversation:
    """An append-only list of messages; every append is passed to the listeners at once."""

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._messages: list[Message] = list(messages)
        self._listeners: list[MessageListener] = []

    @property
    def messages(self) -> tuple[Message, ...]:
        """The messages so far (a snapshot)."""
        return tuple(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def listen(self, listener: MessageListener) -> None:
        """Call ``listener`` with every message appended from now on."""
        self._listeners.append(listener)

    def append(self, message: Message) -> None:
        """Add a message and tell the listeners."""
        self._messages.append(message)
        for listener in self._listeners:
            listener(message)

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
