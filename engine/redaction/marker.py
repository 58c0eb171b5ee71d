"""The text that stands in for a secret in a tool result, and how to count it there."""

from __future__ import annotations

import re

_MARKER = re.compile(r"\[redacted: [\w.$:-]{1,80}\]")


def marker(kind: str) -> str:
    """What replaces one secret: ``[redacted: KIND]`` (a rule's id, or ``$NAME`` for a variable's value)."""
    return f"[redacted: {kind}]"


def count_redactions(text: str) -> int:
    """How many secrets were replaced in ``text`` (counted by their markers)."""
    if "[redacted: " not in text:
        return 0
    return len(_MARKER.findall(text))


def redaction_note(text: str) -> str:
    """``"redacted 2 secrets"`` for a result with replaced secrets; empty for one without."""
    count = count_redactions(text)
    if not count:
        return ""
    return f"redacted {count} secret{'s' if count != 1 else ''}"
