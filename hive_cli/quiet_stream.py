"""A text stream for diagnostics that falls silent, instead of failing, once it cannot be written."""

from __future__ import annotations

import os
from typing import Any, TextIO


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
