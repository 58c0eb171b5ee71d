"""Text from outside hive made safe to print: control characters and escape sequences shown, never obeyed.

A project's file names, rules and commands, and a model's commands and diffs, reach the terminal in
questions and notices; an escape sequence in them could hide a line, retitle the window or set the
clipboard, a carriage return could put one text over another, and a bidirectional override could
reorder what is shown. :func:`visible` writes every control character (C0, DEL, C1) as a visible
escape (``\\x1b``), a carriage return as ``␍``, and the bidi controls and the invisible characters
that change what a line seems to say as theirs (``\\u202e``, ``\\u200b``), so the person sees exactly
what is there.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f"  # C0 (but the newline), DEL, C1
    "\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069"  # bidi marks, overrides, isolates; zero-width
    "\u2028\u2029\ufeff]"  # line and paragraph separators, the zero-width no-break space
)
_CARRIAGE_RETURN = "␍"


def visible(text: str, *, keep_newlines: bool = False, keep_tabs: bool = False) -> str:
    """``text`` with every control or bidi character shown as its escape (newlines and tabs too, unless kept).

    A tab moves the cursor on without hiding anything, so code and diffs may keep theirs (``keep_tabs``).
    """
    shown = _UNSAFE.sub(_escape_keeping_tabs if keep_tabs else _escape, text)
    return shown if keep_newlines else shown.replace("\n", "\\n")


def _escape_keeping_tabs(match: re.Match[str]) -> str:
    return "\t" if match.group() == "\t" else _escape(match)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r":
        return _CARRIAGE_RETURN
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
