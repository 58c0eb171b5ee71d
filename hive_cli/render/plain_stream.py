"""The plain-text counterpart of MarkdownStream, for output that is not a terminal (pipes, files)."""

from __future__ import annotations

from rich.console import Console, RenderableType

from hive_cli.terminal_text import VisibleStream, write_shown


class PlainTextStream:
    """Writes the markdown source as it arrives: no rendering, no ANSI, nothing live.

    Its control characters are written as visible escapes (a pipe may end at a terminal, through ``less -R``
    or ``cat`` of a log). It writes straight to the console's file, so do not show it under an active Live.
    """

    def __init__(self, console: Console) -> None:
        self._console = console
        self._visible = VisibleStream()

    def feed(self, text: str) -> None:
        """Write the delta at once."""
        if text:
            write_shown(self._console.file, self._visible.feed(text))

    def pending(self) -> RenderableType | None:
        """Always None: everything is written as it arrives."""
        return None

    def finish(self) -> None:
        """The answer ended; only a carriage return at its very end may still be held back."""
        write_shown(self._console.file, self._visible.flush())
