"""Streaming markdown for the REPL: finished blocks go to the scrollback once, only the block in progress is live."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from msgspec import Struct
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment, Segments

from hive_cli.render.block_render import RenderedBlock
from hive_cli.render.blocks import BlockSplitter
from hive_cli.render.live_view import LiveTail
from hive_cli.render.plain_stream import PlainTextStream
from hive_cli.terminal_text import VisibleStream


class TextStream(Protocol):
    """What a host feeds the model's answer into (MarkdownStream or PlainTextStream)."""

    def feed(self, text: str) -> None: ...

    def pending(self) -> RenderableType | None: ...

    def finish(self) -> None: ...


def open_stream(console: Console, *, plain: bool = False, code_theme: str = "monokai") -> TextStream:
    """The stream for this console: rendered markdown on a terminal; the raw text when asked or not a terminal."""
    if plain or not console.is_terminal:
        return PlainTextStream(console)
    return MarkdownStream(console, code_theme=code_theme)


class _View(Struct, frozen=True):
    """The live view of the block in progress, and what it was made from."""

    source: str
    key: tuple[int, bool | None]  # (blocks printed so far, Rich's new-line flag): a new block needs a new view
    tail: LiveTail


class MarkdownStream:
    """Turns text deltas into rendered markdown: finished blocks printed once, the block in progress live.

    The model's text is shown, never obeyed: its control characters become visible escapes before it is
    parsed (terminal_text.VisibleStream), so no escape sequence reaches the terminal and markdown still renders.
    The stream is itself a renderable that draws `pending()` at the moment it is drawn, so a Live can hold it
    (`live.update(Group(stream, timeline))`) and never shows a block that has already been printed.
    Call feed() and finish() from one thread; pending() may also be called from a Live's refresh thread.
    """

    def __init__(self, console: Console, *, code_theme: str = "monokai", max_live_lines: int | None = None) -> None:
        """`max_live_lines` bounds the block in progress as drawn live (its last lines are shown); None means
        two thirds of the console's height. Printed blocks are never cut."""
        self._console = console
        self._code_theme = code_theme
        self._max_live_lines = max_live_lines
        self._splitter = BlockSplitter()
        self._visible = VisibleStream()
        self._printed = 0
        self._after: bool | None = None  # Rich's new-line flag left by the last printed element (None: none yet)
        self._view: _View | None = None
        self._shown: RenderableType | None = None
        self._holding = False

    def feed(self, text: str) -> None:
        """Take a delta. Every block that this delta completes is printed (console.print) at once; the rest waits."""
        text = self._visible.feed(text)
        if "\n" in text:  # only a completed line can complete a block
            self._print_finished(lambda: self._splitter.feed(text))
        else:
            self._splitter.feed(text)

    def pending(self) -> RenderableType | None:
        """The block in progress, rendered as markdown so far (for the caller's Live region), or None."""
        if self._holding:
            return self._shown
        limit = self._live_lines()
        source = self._splitter.pending_tail(limit)
        if not source.strip():
            self._shown = None
            return None
        key = (self._printed, self._after)
        view = self._view
        if view is None or view.key != key or (view.source != source and not view.tail.fresh_enough()):
            block = RenderedBlock(source, code_theme=self._code_theme, after=self._after)
            view = self._view = _View(source, key, LiveTail(block, limit))
        self._shown = view.tail
        return self._shown

    def finish(self) -> None:
        """The answer ended: print the block in progress (if any) and reset."""
        self._splitter.feed(self._visible.flush())
        self._print_finished(lambda: [self._splitter.flush()])
        self._after = None
        self._view = self._shown = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        renderable = self.pending()
        if renderable is not None:
            yield renderable

    def _live_lines(self) -> int:
        if self._max_live_lines is not None:
            return self._max_live_lines
        return max(3, self._console.height * 2 // 3)

    def _print_finished(self, take_blocks: Callable[[], list[str]]) -> None:
        """Render the blocks that `take_blocks` releases, then print them in one go.

        While they render, pending() keeps answering what it last showed: a Live refreshing from another thread
        would otherwise draw a frame without the finished blocks, which are neither live nor printed yet.
        """
        self._holding = True
        try:
            segments = self._render(take_blocks())
        finally:
            self._holding = False
        if segments:
            self._console.print(Segments(segments))

    def _render(self, blocks: list[str]) -> list[Segment]:
        """Render finished blocks exactly as console.print renders them inside the whole answer."""
        segments: list[Segment] = []
        options = _print_options(self._console)
        for source in blocks:
            self._printed += 1
            block = RenderedBlock(source, code_theme=self._code_theme, after=self._after)
            if block.last_element is None:  # nothing to show, e.g. only link reference definitions
                continue
            segments.extend(self._console.render(block, options))
            self._after = block.last_element != "hr"
        return segments


def _print_options(console: Console) -> ConsoleOptions:
    """The options console.print renders with when given no arguments."""
    return console.options.update(justify=None, overflow=None, height=None, no_wrap=None, markup=None, highlight=None)
