"""Observation masking: old tool results are sent as short placeholders, the calls themselves stay.

Only the request changes; the conversation (and the session file) keeps every result whole. Rounds
are counted over the whole history, so a long user turn of many tool rounds is masked round by
round too. A placeholder names the tool, its key argument and the size, and how to bring the result
back with ``recall_result``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.context.policy import PreparedRequest
from engine.conversation import Conversation
from engine.errors import ContextOverflowError
from engine.events import ContextCompacted
from engine.model.types import Message

if TYPE_CHECKING:  # compaction reads the window, and the window knows masked results: import for types only
    from engine.context.compaction import CompactionLimit, Compactor

RECALL_TOOL = "recall_result"
KEY_ARGUMENTS = ("path", "command", "pattern", "name", "url", "query", "id")
MAX_KEY_CHARS = 80


PLACEHOLDER_START = "[result of "


def placeholder(tool: str, key: str, chars: int, call_id: str) -> str:
    """What a masked result is sent as."""
    what = f"{tool} {key}" if key else tool
    return f'{PLACEHOLDER_START}{what} masked: {chars:,} chars; {RECALL_TOOL}("{call_id}") brings it back]'


def is_masked(message: Message) -> bool:
    """Whether ``message`` is a tool result sent as a placeholder."""
    content = message.get("content")
    return (
        message.get("role") == "tool"
        and isinstance(content, str)
        and content.startswith(PLACEHOLDER_START)
        and content.endswith(" brings it back]")
    )


class ObservationMasking:
    """A ``ContextPolicy``: results of tool rounds older than the latest ``protected_rounds`` are masked, round by
    round as the rounds pass (``batch_rounds`` at a time), when longer than ``min_chars``."""

    def __init__(
        self,
        protected_rounds: int = 10,
        compactor: Compactor | None = None,
        limit: CompactionLimit | None = None,
        batch_rounds: int = 1,
        min_chars: int = 0,
    ) -> None:
        self.protected_rounds = protected_rounds
        self.min_chars = min_chars
        """Results of at most this many characters are always sent whole: masking them saves little, and the model
        would spend a round bringing one back."""
        self.batch_rounds = max(1, batch_rounds)
        """Rounds are masked this many at a time, so the prefix a provider cached stays the same between batches."""
        self.compactor = compactor
        """Compacts the history when the provider refuses a request as too long (None: the error stands)."""
        self.limit = limit
        """When to compact ahead of time (None: only after an overflow)."""
        self._masked: dict[tuple[str, int], Message | None] = {}
        """Placeholder messages made so far, by (call id, result size), so each request reuses them (None: a
        result shorter than its placeholder, sent whole)."""
        self._keys: dict[tuple[str, str], str] = {}
        """Key arguments found so far, by (tool name, arguments text), so each request reuses them."""

    def prepare(self, history: Sequence[Message], tools: Sequence[dict[str, Any]]) -> PreparedRequest:
        """``history`` with the old results masked (a new tuple; the messages given are not changed)."""
        calls = self._old_calls(history)
        if not calls:
            return PreparedRequest(messages=tuple(history), tools=tuple(tools))
        messages = tuple(self._masked_or_whole(m, calls) for m in history)
        return PreparedRequest(messages=messages, tools=tuple(tools))

    async def shrink(
        self, conversation: Conversation, error: ContextOverflowError, refused: PreparedRequest
    ) -> ContextCompacted | None:
        """After an overflow: learn the window, compact the history into a task ledger that fits well within it
        (the loop then retries once)."""
        if self.compactor is None:
            return None
        if self.limit is None:
            return await self.compactor.compact(conversation, "overflow")
        self.limit.learn(error, refused)
        return await self.compactor.compact(conversation, "overflow", fits=self.limit.tail_fits(refused))

    async def maintain(self, conversation: Conversation, request: PreparedRequest) -> ContextCompacted | None:
        """Compact into the task ledger once a request reaches the limit's share of a known window."""
        if self.compactor is None or self.limit is None or not self.limit.reached(request):
            return None
        return await self.compactor.compact(conversation, "threshold", fits=self.limit.tail_fits(request))

    def _masked_or_whole(self, message: Message, calls: dict[str, tuple[str, str]]) -> Message:
        call_id = message.get("tool_call_id")
        content = message.get("content")
        if message.get("role") != "tool" or call_id not in calls or not isinstance(content, str):
            return message
        if len(content) <= self.min_chars:
            return message
        key = (str(call_id), len(content))
        if key not in self._masked:
            tool, argument = calls[str(call_id)]
            text = placeholder(tool, argument, len(content), str(call_id))
            self._masked[key] = {**message, "content": text} if len(text) < len(content) else None
        masked = self._masked[key]
        return message if masked is None else masked

    def _old_calls(self, history: Sequence[Message]) -> dict[str, tuple[str, str]]:
        """(tool name, key argument) of every call made before the latest ``protected_rounds`` tool rounds, by id,
        counted in whole batches of ``batch_rounds``."""
        rounds = [m for m in history if m.get("role") == "assistant" and m.get("tool_calls")]
        unprotected = max(0, len(rounds) - self.protected_rounds)
        old = rounds[: unprotected - unprotected % self.batch_rounds]
        calls: dict[str, tuple[str, str]] = {}
        for message in old:
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                name = str(function.get("name") or "")
                calls[str(call.get("id"))] = (name, self._key_argument(name, function.get("arguments")))
        return calls

    def _key_argument(self, name: str, arguments: object) -> str:
        if not isinstance(arguments, str):
            return key_argument(arguments)
        key = self._keys.get((name, arguments))
        if key is None:
            key = self._keys[(name, arguments)] = key_argument(arguments)
        return key


def key_argument(arguments: object) -> str:
    """The one argument that best says what a call did (its path, command, pattern...), shortened."""
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return ""
    if not isinstance(parsed, dict):
        return ""
    for name in KEY_ARGUMENTS:
        value = parsed.get(name)
        if isinstance(value, str) and value:
            value = " ".join(value.split())
            return value if len(value) <= MAX_KEY_CHARS else value[: MAX_KEY_CHARS - 1] + "…"
    return ""
