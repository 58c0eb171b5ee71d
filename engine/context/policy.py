"""The context step of the loop: a policy prepares every model request from the history.

Before each model call the loop hands the policy the messages the model would see (the system prompt
and the conversation's view, compactions applied) and the tool definitions; the policy returns what
to send (it may mask old tool results, add cache breakpoints, or cut). When the provider refuses a
request as too long, the loop asks the policy to shrink the conversation (compact it) and retries
once. ``PassThrough``, the default, sends everything and never shrinks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from msgspec import Struct

from engine.conversation import Conversation
from engine.errors import ContextOverflowError
from engine.events import ContextCompacted
from engine.model.types import Message


class PreparedRequest(Struct, frozen=True, kw_only=True):
    """What one model request carries: the messages and the tool definitions (OpenAI format)."""

    messages: tuple[Message, ...]
    tools: tuple[dict[str, Any], ...] = ()


class ContextPolicy(Protocol):
    """Decides what of the history each model request carries."""

    def prepare(self, history: Sequence[Message], tools: Sequence[dict[str, Any]]) -> PreparedRequest:
        """The request for ``history`` (system prompt first, compactions applied) and ``tools``."""
        ...

    async def shrink(
        self, conversation: Conversation, error: ContextOverflowError, refused: PreparedRequest
    ) -> ContextCompacted | None:
        """Make the conversation fit after the provider refused ``refused`` (e.g. compact it); None if it cannot."""
        ...

    async def maintain(self, conversation: Conversation, request: PreparedRequest) -> ContextCompacted | None:
        """Before a model call: compact ahead of time if ``request`` fills the window too far; None otherwise."""
        ...


class PassThrough:
    """Sends the whole history every time and cannot shrink it (the default)."""

    def prepare(self, history: Sequence[Message], tools: Sequence[dict[str, Any]]) -> PreparedRequest:
        return PreparedRequest(messages=tuple(history), tools=tuple(tools))

    async def shrink(
        self, conversation: Conversation, error: ContextOverflowError, refused: PreparedRequest
    ) -> ContextCompacted | None:
        return None

    async def maintain(self, conversation: Conversation, request: PreparedRequest) -> ContextCompacted | None:
        return None


class PolicyWrapper:
    """A context policy around another: passes everything to ``inner``; subclasses change what they add."""

    def __init__(self, inner: ContextPolicy) -> None:
        self.inner = inner

    def prepare(self, history: Sequence[Message], tools: Sequence[dict[str, Any]]) -> PreparedRequest:
        return self.inner.prepare(history, tools)

    async def shrink(
        self, conversation: Conversation, error: ContextOverflowError, refused: PreparedRequest
    ) -> ContextCompacted | None:
        return await self.inner.shrink(conversation, error, refused)

    async def maintain(self, conversation: Conversation, request: PreparedRequest) -> ContextCompacted | None:
        return await self.inner.maintain(conversation, request)
