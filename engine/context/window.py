"""The context window: how large it is for a model, and what fills it (estimated until exact counting lands)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from engine.conversation import is_summary
from engine.model import litellm_import
from engine.model.types import Message
from engine.tools.base import ToolSpec

CHARS_PER_TOKEN = 4
"""The estimate used until exact token counting lands: about four characters a token."""
ROLE_ROWS = {"user": "your messages", "assistant": "hive's replies", "tool": "tool results"}


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens ``text`` takes (0 for no text, at least 1 otherwise)."""
    return max(1, len(text) // CHARS_PER_TOKEN) if text else 0


def context_window(model: str) -> int | None:
    """The model's input window from litellm's model table, or None when unknown or litellm is not loaded yet."""
    litellm = litellm_import.loaded()
    if litellm is None:
        return None
    try:
        info = litellm.get_model_info(model)
    except Exception:  # unknown models raise plain exceptions
        return None
    window = info.get("max_input_tokens") if isinstance(info, dict) else None
    return int(window) if window else None


def percent_used(model: str, prompt_tokens: int | None) -> float | None:
    """How full the window is after a request of ``prompt_tokens`` (None when either is unknown)."""
    if prompt_tokens is None:
        return None
    window = context_window(model)
    return 100 * prompt_tokens / window if window else None


@dataclass(frozen=True, kw_only=True)
class ContextBreakdown:
    """What fills the context window, by kind of content, in estimated tokens."""

    model: str
    rows: tuple[tuple[str, int], ...]
    """(what, tokens) in display order: system prompt, tool definitions, then each kind of message."""
    window: int | None = None

    @property
    def total(self) -> int:
        """Every row together."""
        return sum(tokens for _, tokens in self.rows)

    @property
    def percent(self) -> float | None:
        """The share of the window in use, when the window is known."""
        return 100 * self.total / self.window if self.window else None


def breakdown(model: str, instructions: str, tools: Sequence[ToolSpec], view: Sequence[Message]) -> ContextBreakdown:
    """The breakdown of a request with ``instructions``, ``tools`` and the conversation's ``view``."""
    rows: dict[str, int] = {
        "system prompt": estimate_tokens(instructions),
        "tool definitions": estimate_tokens(json.dumps([spec.to_openai() for spec in tools])) if tools else 0,
    }
    for message in view:
        kind = (
            "summary of earlier messages" if is_summary(message) else ROLE_ROWS.get(str(message.get("role")), "other")
        )
        text = str(message.get("content") or "") + json.dumps(message.get("tool_calls") or "")
        rows[kind] = rows.get(kind, 0) + estimate_tokens(text)
    return ContextBreakdown(model=model, rows=tuple(rows.items()), window=context_window(model))
