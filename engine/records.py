"""What engine's records share: how a record with fields that must not be shown shows itself.

Records are msgspec ``Struct``s (``frozen=True``, mostly ``kw_only=True``): a Struct class is made
in about 20 µs where a frozen dataclass takes about 1 ms on Python 3.11, and hive defines some two
hundred of them on its start path. A Struct has no per-field ``repr=False``, so a record that holds a
secret (an API key, a webhook secret, a server's environment) or bulk text takes both of the ways a
record is shown from :func:`hiding`: ``__repr__, __rich_repr__ = hiding("api_key")``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ShownFields = Callable[[Any], list[tuple[str, Any]]]


def hiding(*hidden: str) -> tuple[Callable[[Any], str], ShownFields]:
    """``__repr__`` and ``__rich_repr__`` for a record, leaving out the fields named in ``hidden``.

    Both are needed: a Struct's own ``__rich_repr__``, which rich's pretty printing uses (tracebacks
    with locals among them), shows every field whatever ``__repr__`` says.
    """

    def rich_repr(record: Any) -> list[tuple[str, Any]]:
        return [(name, getattr(record, name)) for name in record.__struct_fields__ if name not in hidden]

    def text(record: Any) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in rich_repr(record))
        return f"{type(record).__name__}({shown})"

    return text, rich_repr
