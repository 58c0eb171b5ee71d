"""What a provider's context-overflow error says about the window, in each provider's own words."""

from __future__ import annotations

import re

_WINDOW_PATTERNS = (
    re.compile(r"maximum context length is (\d[\d,]*) tokens", re.IGNORECASE),  # OpenAI, vLLM, DeepSeek, Groq
    re.compile(r"(\d[\d,]*) tokens > (\d[\d,]*) maximum", re.IGNORECASE),  # Anthropic: the second number
    re.compile(r"context length of only (\d[\d,]*) tokens", re.IGNORECASE),  # LM Studio
    re.compile(r"maximum number of tokens allowed \((\d[\d,]*)\)", re.IGNORECASE),  # Gemini
    re.compile(r"\bn_ctx\W+(\d+)", re.IGNORECASE),  # llama.cpp
    re.compile(r"context (?:window|size|length) (?:of|is) (\d[\d,]*) tokens", re.IGNORECASE),
)
REFUSED_SHARE = 0.9
"""When the error names no window: it is taken as this share of the refused request's tokens."""


def window_in_error(message: str) -> int | None:
    """The window (tokens) an overflow error names, or None when it names none."""
    for pattern in _WINDOW_PATTERNS:
        match = pattern.search(message)
        if match:
            return int(match.groups()[-1].replace(",", ""))
    return None


def window_after_refusal(message: str, refused_tokens: int, current: int) -> int:
    """The window to assume after a refusal: the one the error names, else a little under what was refused.

    A refused request proves the window is smaller than it, whatever a model table says.
    """
    named = window_in_error(message)
    if named:
        return named
    return max(1, min(current, int(refused_tokens * REFUSED_SHARE)))
