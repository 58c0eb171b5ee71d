"""How the block in progress is drawn in a Live region: its last lines only, rendered once per width."""

from __future__ import annotations

import time

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment

# A view that took t seconds to render is not replaced by a newer one for RERENDER_GAP * t: re-rendering
# a large block in progress (a long list, a big table) then costs at most about a tenth of a core.
RERENDER_GAP = 10.0


class LiveTail:
    """The last `max_lines` lines of a renderable; drawing it again at the same width reuses the lines."""

    def __init__(self, renderable: RenderableType, max_lines: int) -> None:
        self._renderable = renderable
        self._max_lines = max_lines
        self._lines: tuple[int, list[list[Segment]]] | None = None
        self._cost = 0.0
        self._rendered_at = 0.0

    def fresh_enough(self) -> bool:
        """True while this view was expensive to render so recently that a newer one should wait."""
        return self._lines is not None and time.perf_counter() - self._rendered_at < RERENDER_GAP * self._cost

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self._lines is None or self._lines[0] != options.max_width:
            started = time.perf_counter()
            lines = console.render_lines(self._renderable, options, pad=False)
            self._lines = (options.max_width, lines[-self._max_lines :] if self._max_lines > 0 else [])
            self._rendered_at = time.perf_counter()
            self._cost = self._rendered_at - started
        for line in self._lines[1]:
            yield from line
            yield Segment.line()
