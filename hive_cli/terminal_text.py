"""Text from outside hive made safe to print: control characters and escape sequences shown, never obeyed.

A project's file names, rules and commands, and a model's commands and diffs, reach the terminal in
questions and notices; an escape sequence in them could hide a line, retitle the window or set the
clipboard, a carriage return could put one text over another, and a bidirectional override could
reorder what is shown. :func:`visible` writes every control character (C0, DEL, C1) as a visible
escape (``\\x1b``), a carriage return as ``␍``, and the bidi controls and the invisible characters
that change what a line seems to say as theirs (``\\u202e``, ``\\u200b``), so the person sees exactly
what is there.

Everything hive prints that may hold text from outside it passes here: :func:`echo` and :func:`write_shown`
for plain output, :func:`shown_json` for JSON, :class:`VisibleStream` for text that arrives in pieces (the
model's answer), and :func:`inert` for the Rich console (hive_cli.safe_console), which drops what is left of
such characters in the text it draws. A test (tests/hive_cli/test_terminal_boundary_lint.py) keeps every
write to the terminal going through these.
"""

from __future__ import annotations

import os
import re
import sys
from typing import IO, Any, TextIO

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


def inert(text: str) -> str:
    """``text`` without its control and bidi characters (newlines and tabs kept): nothing in it steers a terminal.

    For text already laid out (the Rich console's last step), where an escape would change the widths.
    """
    return _UNSAFE.sub(_drop_keeping_tabs, text)


def _drop_keeping_tabs(match: re.Match[str]) -> str:
    return "\t" if match.group() == "\t" else ""


def shown_json(text: str) -> str:
    """JSON text with the control and bidi characters JSON leaves raw (DEL, C1, bidi marks, when not
    ``ensure_ascii``) written as their ``\\uXXXX`` escapes: the same JSON, inert at a terminal."""
    return _UNSAFE.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def visible_lines(text: str) -> str:
    """:func:`visible` keeping newlines, tabs and the carriage return of each CR LF line ending: what
    :func:`echo` and :func:`write_shown` write."""
    return "\r\n".join(visible(line, keep_newlines=True, keep_tabs=True) for line in text.split("\r\n"))


def write_shown(stream: IO[str] | None, text: str) -> None:
    """Write ``text`` to ``stream`` as :func:`visible` shows it (newlines, tabs and CR LF line endings kept),
    and flush.

    Nothing is written when the stream is closed (None), as ``click.echo`` does.
    """
    if stream is not None:
        stream.write(visible_lines(text))
        stream.flush()


def write_json(stream: IO[str] | None, text: str) -> None:
    """Write JSON ``text`` to ``stream`` with :func:`shown_json`'s escapes, and flush."""
    if stream is not None:
        stream.write(shown_json(text))
        stream.flush()


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` for text that may hold something from outside hive: to stdout (stderr with ``err``)."""
    write_shown(sys.stderr if err else sys.stdout, message + "\n" if nl else message)


def echo_json(text: str, *, err: bool = False) -> None:
    """Print JSON ``text`` and a newline, with :func:`shown_json`'s escapes."""
    write_json(sys.stderr if err else sys.stdout, text + "\n")


class VisibleStream:
    """:func:`visible` (newlines and tabs kept) for text that arrives in pieces, such as the model's answer.

    Each control character is escaped on its own, so a sequence split across pieces is as inert as a whole
    one. A carriage return before a newline is a line ending, not an attack, even when the two arrive in
    different pieces: it is kept; any other carriage return shows as ``␍``.
    """

    def __init__(self) -> None:
        self._held_return = False

    def feed(self, text: str) -> str:
        """The piece as it should be shown (a trailing carriage return waits for the next piece)."""
        if self._held_return:
            text = "\r" + text
        self._held_return = text.endswith("\r")
        if self._held_return:
            text = text[:-1]
        return visible_lines(text)

    def flush(self) -> str:
        """What is still held (a carriage return at the very end, shown), and start over."""
        held, self._held_return = self._held_return, False
        return _CARRIAGE_RETURN if held else ""


def visible_markdown(text: str) -> str:
    """Markdown source from outside hive made safe to render: :class:`VisibleStream`'s rules for a whole text.

    Done to the source before it is parsed, so headings, lists and code blocks still render, and no escape
    sequence reaches the terminal through a link or a code block.
    """
    stream = VisibleStream()
    return stream.feed(text) + stream.flush()


class QuietWhenGone:
    """Wraps standard error: writes go through until one fails (closed pipe, full disk), then nowhere.

    Everything else (``fileno``, ``isatty``, ``encoding``...) is the wrapped stream's, so consoles that
    ask it what it is get the same answers.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._stream.write(text)
            except (OSError, ValueError):
                self._fall_silent()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._fall_silent()

    def _fall_silent(self) -> None:
        """Stop writing, and point descriptor 2 at /dev/null so that child processes and the interpreter's
        own last words (at exit) cannot fail on it either."""
        self._gone = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
