"""The plain-text counterpart of MarkdownStream, for output that is not a terminal (pipes, files)."""

from __future__ import annotations

from rich.console import Console, RenderableType


class PlainTextStream:
    """Writes the raw markdown source exactly as it arrives: no rendering, no ANSI, nothing live.

    It writes straight to the console's file, so do not show it under an active Live.
    """

    def __init__(self, console: Console) -> None:
        self._console = console

    def feed(self, text: str) -> None:
        """Write the delta at once."""
        if text:
            file = self._console.file
            file.write(text)
            file.flush()

    def pending(self) -> RenderableType | None:
        """Always None: everything is written as it arrives."""
        return None

    def finish(self) -> None:
        """The answer ended; nothing is held back, so there is nothing to write."""
        self._console.file.flush()
