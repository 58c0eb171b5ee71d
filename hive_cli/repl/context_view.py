"""/context: what fills the context window, by kind of content (estimated until exact counting lands)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from engine.model import litellm_import

if TYPE_CHECKING:
    from rich.table import Table

    from engine.session import Session

CHARS_PER_TOKEN = 4


def _estimate(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN) if text else 0


def _window(model: str) -> int | None:
    litellm = litellm_import.loaded()
    if litellm is None:
        return None
    try:
        info = litellm.get_model_info(model)
    except Exception:  # unknown models raise plain exceptions
        return None
    window = info.get("max_input_tokens") if isinstance(info, dict) else None
    return int(window) if window else None


def context_table(session: Session) -> Table:
    """A table of the system prompt, tools, and each kind of message, in estimated tokens."""
    from rich.table import Table

    loop = session.loop
    rows: dict[str, int] = {
        "system prompt": _estimate(loop.instructions),
        "tool definitions": _estimate(json.dumps([s.to_openai() for s in loop.toolset.specs()])),
    }
    for message in loop.conversation.messages:
        kind = {"user": "your messages", "assistant": "hive's replies", "tool": "tool results"}.get(
            str(message.get("role")), "other"
        )
        text = str(message.get("content") or "") + json.dumps(message.get("tool_calls") or "")
        rows[kind] = rows.get(kind, 0) + _estimate(text)
    total = sum(rows.values())
    window = _window(loop.client.model)
    table = Table(box=None, padding=(0, 2), title=f"context of {loop.client.model}", title_justify="left")
    table.add_column("what")
    table.add_column("≈ tokens", justify="right")
    table.add_column("share", justify="right")
    for name, tokens in rows.items():
        table.add_row(name, f"{tokens:,}", f"{100 * tokens / total:.0f}%" if total else "")
    used = f"{total:,}" + (f" of {window:,} ({100 * total / window:.1f}%)" if window else " (window unknown)")
    table.add_row("total", used, "", style="bold")
    return table


def context_percent(model: str, last_prompt_tokens: int | None) -> float | None:
    """How full the window is, from the last model call's reported prompt tokens (None when unknown)."""
    if last_prompt_tokens is None:
        return None
    window = _window(model)
    return 100 * last_prompt_tokens / window if window else None
