"""The context-policy layer that fits the fixed part (instructions and tool schemas) into a small window.

Every request passes through ``prepare``: when the model's window is known and the fixed part takes more
than ``share`` of it, the system prompt and the tools are replaced by what ``fit_fixed_part`` makes of
them (compact schemas, fewer tools, shorter instructions), or the run stops with ``WindowTooSmall``
before the request is sent. After a refused overflow (``shrink``) the window the error names is learned
first; when the fixed part is what does not fit, the request is sent again with the fixed part fitted to
the new window, and the conversation is not compacted: a summary cannot make the fixed part smaller.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from engine.context.fixed_part import Counting, FixedPart, fit_fixed_part
from engine.context.overflow import window_after_refusal
from engine.context.policy import ContextPolicy, PolicyWrapper, PreparedRequest
from engine.context.tokens import counter_for
from engine.context.window import Window, Windows
from engine.conversation import Conversation
from engine.errors import ContextOverflowError
from engine.events import ContextCompacted
from engine.model.types import Message

Tool = dict[str, Any]


class FixedPartFit(PolicyWrapper):
    """``inner`` given the fixed part fitted to ``share`` of the model's known window."""

    def __init__(self, inner: ContextPolicy, model: Callable[[], str], windows: Windows, share: float) -> None:
        super().__init__(inner)
        self.model = model
        self.windows = windows
        self.share = share
        self.last: FixedPart | None = None
        """The fixed part of the latest request (None before the first, or when it was sent as it is)."""
        self._asked: tuple[str, tuple[Tool, ...], Sequence[Message]] = ("", (), ())
        self._memo: tuple[object, FixedPart] | None = None

    def prepare(self, history: Sequence[Message], tools: Sequence[dict[str, Any]]) -> PreparedRequest:
        instructions, rest = _split_system(history)
        self._asked = (instructions, tuple(tools), history)
        fitted = self._fitted(self.windows.of(self.model()))
        self.last = fitted
        if fitted is None or not fitted.steps:
            return self.inner.prepare(history, tools)
        system: tuple[Message, ...] = (
            ({"role": "system", "content": fitted.instructions},) if fitted.instructions else ()
        )
        return self.inner.prepare((*system, *rest), fitted.tools)

    async def shrink(
        self, conversation: Conversation, error: ContextOverflowError, refused: PreparedRequest
    ) -> ContextCompacted | None:
        model = self.model()
        counter = counter_for(model)
        refused_tokens = counter.request(refused.messages, refused.tools)
        current = self.windows.of(model)
        window = self.windows.learn(model, window_after_refusal(str(error), refused_tokens, current.tokens))
        instructions, _ = _split_system(refused.messages)
        if _counting(model).fixed(instructions, refused.tools) <= window.tokens * self.share:
            return await self.inner.shrink(conversation, error, refused)
        self._fitted(window)  # raises WindowTooSmall when even the minimum cannot fit
        messages = len(conversation.messages)
        return ContextCompacted(reason="overflow", summarised_messages=0, kept_messages=messages)

    def _fitted(self, window: Window) -> FixedPart | None:
        """The fixed part for ``window`` (None for a guessed window: nothing is known to fit or not)."""
        if not window.known:
            return None
        instructions, tools, history = self._asked
        budget = window.tokens * self.share
        if len(instructions) + len(json.dumps(tools)) < budget:
            return FixedPart(instructions=instructions, tools=tools, tokens=0)  # a token is at least a character
        key = (window.tokens, instructions, json.dumps(tools), _query(history))
        if self._memo is not None and self._memo[0] == key:
            return self._memo[1]
        ranking, used = _ranking(history, tools)
        counting = _counting(self.model())
        fitted = fit_fixed_part(
            instructions, tools, budget=budget, window=window.tokens, counting=counting, ranking=ranking, keep=used
        )
        self._memo = (key, fitted)
        return fitted


def _split_system(history: Sequence[Message]) -> tuple[str, tuple[Message, ...]]:
    """The system prompt's text and the messages after it ('' and all of them when there is none)."""
    if history and history[0].get("role") == "system" and isinstance(history[0].get("content"), str):
        return str(history[0]["content"]), tuple(history[1:])
    return "", tuple(history)


def _counting(model: str) -> Counting:
    counter = counter_for(model)
    return Counting(instructions=lambda text: counter.message({"role": "system", "content": text}), tools=counter.tools)


def _query(history: Sequence[Message]) -> str:
    from engine.retrieval.toolset import latest_request

    return latest_request(history)


def _ranking(history: Sequence[Message], tools: Sequence[Tool]) -> tuple[list[str], list[str]]:
    """The tool names the keyword retriever ranks best first for the latest request, and the tools already used."""
    from engine.retrieval.keywords import KeywordRetriever
    from engine.retrieval.toolset import latest_request, used_tools
    from engine.tools.base import ToolSpec

    specs = [
        ToolSpec(name=str(f.get("name")), description=str(f.get("description") or ""), parameters={})
        for tool in tools
        if isinstance(f := tool.get("function"), dict)
    ]
    scores = KeywordRetriever().scores(latest_request(history), specs)
    ranked = sorted((spec.name for spec in specs), key=lambda name: -scores.get(name, 0.0))
    return ranked, used_tools(history)
