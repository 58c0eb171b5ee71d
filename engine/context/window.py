"""The context window: how large it is for a model, and what fills it (in the model's tokens once litellm is loaded)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.context.tokens import counter_for
from engine.conversation import is_summary
from engine.model import litellm_import
from engine.model.types import Message
from engine.tools.base import ToolSpec

ROLE_ROWS = {"user": "your messages", "assistant": "hive's replies", "tool": "tool results"}


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
    """What fills the context window, by kind of content, in tokens."""

    model: str
    rows: tuple[tuple[str, int], ...]
    """(what, tokens) in display order: system prompt, tool definitions, then each kind of message."""
    window: int | None = None
    exact: bool = False
    """Counted with the model's tokenizer; False: estimated (litellm is not loaded yet)."""

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
    counter = counter_for(model)
    rows: dict[str, int] = {
        "system prompt": counter.message({"role": "system", "content": instructions}) if instructions else 0,
        "tool definitions": counter.tools([spec.to_openai() for spec in tools]),
    }
    for message in view:
        kind = (
            "summary of earlier messages" if is_summary(message) else ROLE_ROWS.get(str(message.get("role")), "other")
        )
        rows[kind] = rows.get(kind, 0) + counter.message(message)
    return ContextBreakdown(model=model, rows=tuple(rows.items()), window=context_window(model), exact=counter.exact)
