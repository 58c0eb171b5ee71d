"""Prices and context windows from litellm's own table (see ``engine.model.model_table``): litellm's figures,
without importing litellm.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from engine.model.model_table import entry as listed
from engine.model.types import ModelReply
from engine.usage import Usage


def model_entry(*models: str) -> dict[str, Any] | None:
    """The table's entry for the first of ``models`` it lists (with or without the provider prefix).

    litellm's ``openai/responses/<name>`` (the Responses API asked for by name) is looked up as ``<name>``.
    """
    for model in models:
        if not model:
            continue
        unprefixed = model.split("/", 1)[-1]
        for name in dict.fromkeys((model, unprefixed, unprefixed.removeprefix("responses/"))):
            found = listed(name)
            if found is not None:
                return found
    return None


def cost_of(usage: Usage, entry: dict[str, Any]) -> float | None:
    """What ``usage`` costs at ``entry``'s per-token prices; None when the entry has no prices."""
    input_price = entry.get("input_cost_per_token")
    output_price = entry.get("output_cost_per_token")
    if input_price is None or output_price is None:
        return None
    cached = usage.cached_read_tokens or 0
    written = usage.cache_write_tokens or 0
    uncached = max(0, (usage.prompt_tokens or 0) - cached - written)
    cost = uncached * float(input_price) + (usage.completion_tokens or 0) * float(output_price)
    cost += cached * float(entry.get("cache_read_input_token_cost", input_price))
    cost += written * float(entry.get("cache_creation_input_token_cost", input_price))
    return cost


def priced(reply: ModelReply, model: str) -> ModelReply:
    """``reply`` with its cost from the table (configured model first, then the name the server gave)."""
    usage = reply.usage
    if usage.prompt_tokens is None and usage.completion_tokens is None:
        return reply
    entry = model_entry(model, reply.model)
    cost = cost_of(usage, entry) if entry is not None else None
    if not cost:
        return reply  # unlisted, or listed at zero: a gap in the table, not a free model
    return replace(reply, usage=replace(usage, cost_usd=cost))


def max_input_tokens(model: str) -> int | None:
    """The model's input window from the table, or None when it is not listed."""
    entry = model_entry(model)
    window = entry.get("max_input_tokens") if entry else None
    return int(window) if isinstance(window, int | float) and window > 0 else None
