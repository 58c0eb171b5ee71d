"""The one kind of Rich console hive draws with: text content never steers the terminal.

Rich's ``Text`` strips a few control characters (BEL, backspace, CR, VT, FF) but lets ESC through, so
an ``ESC ] 52 ; …`` (set the clipboard) or an ``ESC [ 8 m`` (hide what follows) in a model's answer, a
file name or a server's message would reach the terminal as a command. :class:`SafeConsole` cleans the
text of every segment at the last step before it is written, leaving what Rich itself emits — the ANSI
of styles and links, and its control segments (cursor moves of a live region, the window title hive
sets) — untouched. What is dropped here was not shown where it entered; the places where a visible
escape reads better (the model's markdown, transcripts, reports) apply ``terminal_text.visible`` first.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.console import Console
from rich.segment import Segment

from hive_cli.terminal_text import inert


class SafeConsole(Console):
    """A ``rich.console.Console`` whose text content is cleaned of control and bidi characters as it is written."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(_cleaned(buffer))


def _cleaned(segments: Iterable[Segment]) -> Iterator[Segment]:
    for segment in segments:
        if segment.control:  # Rich's own terminal commands, never text from outside
            yield segment
            continue
        text = inert(segment.text)
        yield segment if text == segment.text else Segment(text, segment.style)
