"""What engine's records share: the repr of a record with fields that must not be shown.

Records are msgspec ``Struct``s (``frozen=True``, mostly ``kw_only=True``): a Struct class is made
in about 20 µs where a frozen dataclass takes about 1 ms on Python 3.11, and hive defines some two
hundred of them on its start path. A Struct has no per-field ``repr=False``, so a record that holds a
secret (an API key, a webhook secret, a server's environment) writes its ``__repr__`` with
:func:`repr_without`.
"""

from __future__ import annotations

from msgspec import Struct


def repr_without(record: Struct, *hidden: str) -> str:
    """``Name(field=value, ...)``, as a Struct shows itself, leaving out the fields named in ``hidden``."""
    shown = ", ".join(f"{name}={getattr(record, name)!r}" for name in record.__struct_fields__ if name not in hidden)
    return f"{type(record).__name__}({shown})"
