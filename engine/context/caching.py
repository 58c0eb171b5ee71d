"""Prompt caching: cache breakpoints on what stays the same from one request to the next.

Anthropic's models (served by Anthropic, Bedrock or Vertex) cache a prompt prefix only up to a
``cache_control`` breakpoint, at most four of them: one on the tools, one on the system prompt, and
two on the history — the latest message, and the one before it, so each request reads what the
previous one wrote. OpenAI-compatible providers cache by themselves and get nothing added. The marks
are made on copies in the request; the conversation never holds them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.context.policy import ContextPolicy, PolicyWrapper, PreparedRequest
from engine.model.types import Message

CACHE_POINT = {"type": "ephemeral"}
HISTORY_BREAKPOINTS = 2
_BREAKPOINT_PROVIDERS = ("anthropic", "bedrock", "bedrock_converse", "vertex_ai")


def takes_breakpoints(model: str) -> bool:
    """Whether ``model`` caches prompts only where a request marks ``cache_control`` (Claude models)."""
    provider, _, name = model.partition("/")
    if provider == "anthropic":
        return True
    return provider in _BREAKPOINT_PROVIDERS and "claude" in name.lower()


class PromptCaching(PolicyWrapper):
    """Adds cache breakpoints to the requests ``inner`` prepares, when the model (given at each call) takes them."""

    def __init__(self, inner: ContextPolicy, model: Callable[[], str]) -> None:
        super().__init__(inner)
        self.model = model

    def prepare(self, history: Sequence[Message], tools: Sequence[dict[str, Any]]) -> PreparedRequest:
        request = self.inner.prepare(history, tools)
        if not takes_breakpoints(self.model()):
            return request
        return PreparedRequest(messages=marked_messages(request.messages), tools=marked_tools(request.tools))


def marked_tools(tools: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The tools with a breakpoint on the last (it caches every definition)."""
    if not tools:
        return ()
    return (*tools[:-1], {**tools[-1], "cache_control": CACHE_POINT})


def marked_messages(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The messages with breakpoints on the last system message and the latest ``HISTORY_BREAKPOINTS`` others."""
    marked = list(messages)
    systems = [i for i, m in enumerate(marked) if m.get("role") in ("system", "developer") and _markable(m)]
    others = [i for i, m in enumerate(marked) if m.get("role") not in ("system", "developer") and _markable(m)]
    for index in systems[-1:] + others[-HISTORY_BREAKPOINTS:]:
        marked[index] = with_breakpoint(marked[index])
    return tuple(marked)


def with_breakpoint(message: Message) -> Message:
    """A copy of ``message`` whose last content part carries the breakpoint (a string becomes one text part)."""
    content = message.get("content")
    parts: list[dict[str, Any]] = (
        [{"type": "text", "text": content}] if isinstance(content, str) else [dict(p) for p in content or ()]
    )
    parts[-1]["cache_control"] = CACHE_POINT
    return {**message, "content": parts}


def _markable(message: Message) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        return bool(content)
    return isinstance(content, list) and bool(content) and isinstance(content[-1], dict)
