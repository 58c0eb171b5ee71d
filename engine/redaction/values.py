"""The values of the secret variables of hive's environment, found wherever they occur in a text.

A variable counts when :func:`engine.sandbox.environment.is_secret` flags it (by its name or its
value) and its value has at least 8 characters; a value that names an existing file or folder (a
socket, a credentials file's path) is a location, not a secret. The values are matched as one
alternation, longest first (``scan.ValueMatcher``), and each is shown as ``$NAME``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from engine.sandbox.environment import is_secret

MIN_LENGTH = 8


def secret_values(
    environ: Mapping[str, str], extra: Iterable[tuple[str, str | None]] = ()
) -> tuple[tuple[str, str], ...]:
    """``(kind, value)`` for each secret variable of ``environ`` (kind ``$NAME``) and each ``extra`` value."""
    found = {value: f"${name}" for name, value in environ.items() if _secret(name, value)}
    for kind, value in extra:
        if value and len(value) >= MIN_LENGTH and _encodable(value):
            found.setdefault(value, kind)
    return tuple(sorted(((kind, value) for value, kind in found.items()), key=lambda pair: -len(pair[1])))


def _secret(name: str, value: str) -> bool:
    if len(value) < MIN_LENGTH or not _encodable(value) or not is_secret(name, value):
        return False
    return not (value.startswith(("/", "~")) and os.path.lexists(os.path.expanduser(value)))


def _encodable(value: str) -> bool:
    """False for a value holding undecodable bytes (kept by the OS as surrogates): no text shows it as such."""
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True
