"""Text from outside hive made safe to print: control characters and escape sequences shown, never obeyed.

A project's file names, rules and commands reach the terminal in questions and notices; an escape
sequence in them could hide a line, retitle the window or set the clipboard. :func:`visible` writes
every control character (C0, DEL, C1), and the bidirectional overrides that reorder what is shown,
as a visible escape (``\\x1b``, ``\\u202e``), so the person sees exactly what is there.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control or bidi-override character shown as its escape (newlines too, unless kept)."""
    shown = _UNSAFE.sub(_escape, text)
    return shown if keep_newlines else shown.replace("\n", "\\n")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
