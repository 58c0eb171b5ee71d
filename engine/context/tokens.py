"""Token counts of requests and replies, offline, each message counted once.

Once litellm is loaded, the tokenizer is the one litellm picks for the model, read from the files
bundled in its wheel (never downloaded). Before that nothing here imports litellm: counts use
cl100k_base read from the same bundled file (``bundled_tokenizer``), or, where that file is
missing, an estimate of about four characters a token. A message's count is remembered under a
fingerprint of its content (Python caches a string's hash on the string, so fingerprinting a long
history that shares its strings costs microseconds), so a growing history is only counted for its
new messages.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache
from typing import Any, Literal

from engine.context.bundled_tokenizer import cl100k_counter
from engine.images import IMAGE_TOKENS
from engine.model import litellm_import
from engine.model.types import Message

CHARS_PER_TOKEN = 4
"""The estimate used while litellm is not loaded: about four characters a token."""
MESSAGE_OVERHEAD = 3
"""Tokens every chat message costs beyond its content (OpenAI's chat format: role and separators)."""
CALL_OVERHEAD = 3
"""Tokens each tool call costs beyond its name and arguments."""
REPLY_PRIMING = 3
"""Tokens that prime the assistant's reply at the end of every request."""
MAX_CACHED = 200_000
"""Message counts remembered before the cache starts over."""

TextCounter = Callable[[str], int]
TokenizerSource = Literal["estimate", "cl100k_base", "litellm"]


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens ``text`` takes (0 for no text, at least 1 otherwise)."""
    return max(1, len(text) // CHARS_PER_TOKEN) if text else 0


def _tokenizer_for(model: str) -> TextCounter | None:
    """litellm's tokenizer for ``model`` as a counting function, or None while litellm is not loaded."""
    litellm = litellm_import.loaded()
    if litellm is None:
        return None
    from litellm import utils

    try:
        chosen = dict(utils.select_tokenizer(model))
    except Exception:  # a tokenizer that cannot load: litellm's default encoding
        chosen = dict(utils.select_tokenizer(""))

    def count(text: str) -> int:
        return len(utils.encode(model=model, text=text, custom_tokenizer=chosen)) if text else 0

    return count


class TokenCounter:
    """Counts the tokens of messages, tool definitions and requests for one model."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._count: TextCounter = estimate_tokens
        self._source: TokenizerSource = "estimate"
        self._messages: dict[Hashable, int] = {}
        self._tools: dict[Hashable, int] = {}
        self.counted = 0
        """Messages counted so far (not found among the remembered counts)."""

    @property
    def source(self) -> TokenizerSource:
        """What counts: litellm's tokenizer for the model, the bundled cl100k_base, or the estimate."""
        self._refresh()
        return self._source

    @property
    def exact(self) -> bool:
        """Whether counts come from a tokenizer (False: estimated, no tokenizer file could be read)."""
        return self.source != "estimate"

    def text(self, text: str) -> int:
        """The tokens of ``text``."""
        self._refresh()
        return self._count(text)

    def message(self, message: Message) -> int:
        """The tokens ``message`` takes in a request (remembered under a fingerprint of its content)."""
        self._refresh()
        key = _fingerprint(message)
        count = self._messages.get(key)
        if count is None:
            if len(self._messages) >= MAX_CACHED:
                self._messages.clear()
            count = self._messages[key] = self._message_tokens(message)
            self.counted += 1
        return count

    def messages(self, messages: Sequence[Message]) -> int:
        """The tokens of ``messages`` together (without the reply priming)."""
        return sum(self.message(m) for m in messages)

    def tools(self, tools: Sequence[dict[str, Any]]) -> int:
        """The tokens the tool definitions take."""
        if not tools:
            return 0
        self._refresh()
        text = json.dumps(list(tools), sort_keys=True)
        key = (len(text), hash(text))
        count = self._tools.get(key)
        if count is None:
            count = self._tools[key] = self._count(text)
        return count

    def request(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]] = ()) -> int:
        """The prompt tokens of a request with ``messages`` and ``tools``."""
        return self.messages(messages) + self.tools(tools) + REPLY_PRIMING

    def reply(self, text: str, reasoning: str = "", calls: Sequence[tuple[str, str]] = ()) -> int:
        """The completion tokens of a reply: its text, its reasoning and its tool calls (name, arguments)."""
        self._refresh()
        parts = [self._count(text), self._count(reasoning)]
        parts += [self._count(name) + self._count(arguments) + CALL_OVERHEAD for name, arguments in calls]
        return sum(parts)

    def _refresh(self) -> None:
        """Move to a better tokenizer when one becomes available (earlier counts are forgotten)."""
        if self._source == "litellm":
            return
        tokenizer = _tokenizer_for(self.model)
        if tokenizer is not None:
            self._switch("litellm", tokenizer)
        elif self._source == "estimate" and (bundled := cl100k_counter()) is not None:
            self._switch("cl100k_base", bundled)

    def _switch(self, source: TokenizerSource, count: TextCounter) -> None:
        self._source, self._count = source, count
        self._messages.clear()
        self._tools.clear()

    def _message_tokens(self, message: Message) -> int:
        count = self._count
        content = message.get("content")
        total = MESSAGE_OVERHEAD + count(_content_text(content)) + IMAGE_TOKENS * _images_in(content)
        for name in ("name", "reasoning_content"):
            value = message.get(name)
            if isinstance(value, str):
                total += count(value)
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            total += (
                CALL_OVERHEAD + count(str(function.get("name") or "")) + count(str(function.get("arguments") or ""))
            )
        return total


def _content_text(content: object) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content if _has_text(p)]
        return "\n".join(texts)
    return str(content)


def _has_text(part: object) -> bool:
    return not isinstance(part, dict) or part.get("type") != "image_url"


def _images_in(content: object) -> int:
    """How many image parts ``content`` has (each counts ``IMAGE_TOKENS``, whatever the length of its base64)."""
    if not isinstance(content, list):
        return 0
    return sum(1 for part in content if isinstance(part, dict) and part.get("type") == "image_url")


def _fingerprint(message: Message) -> Hashable:
    """A key that changes whenever what is counted of ``message`` changes."""
    calls = tuple(
        (call.get("id"), _text_key((call.get("function") or {}).get("name")), _text_key(_arguments(call)))
        for call in message.get("tool_calls") or ()
    )
    return (
        message.get("role"),
        _text_key(message.get("content")),
        _text_key(message.get("name")),
        _text_key(message.get("reasoning_content")),
        calls,
    )


def _arguments(call: dict[str, Any]) -> object:
    return (call.get("function") or {}).get("arguments")


def _text_key(value: object) -> Hashable:
    if value is None or isinstance(value, str):
        return (len(value), hash(value)) if value else value
    return _text_key(json.dumps(value, sort_keys=True, default=str))


@lru_cache(maxsize=16)
def counter_for(model: str) -> TokenCounter:
    """The process's token counter for ``model`` (shared, so each message is counted once)."""
    return TokenCounter(model)
