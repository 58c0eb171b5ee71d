"""The base class of the built-in tools' argument records, and the nulls a model sends for "not given"."""

from __future__ import annotations

from typing import Any

from engine.config.validation import StrictRecord


class ToolArgs(StrictRecord, frozen=True):
    """Arguments as a model sends them: unknown names are refused, and ``null`` means "not given"."""


def without_nulls(value: Any) -> Any:
    """``value`` without the mapping entries that are ``null``, at any depth, so that their defaults apply.

    Models often send null for optional parameters; treating it as leaving them out lets the schema
    stay a plain type instead of "type or null". Nulls inside lists stay: they are items, not omissions.
    """
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value
