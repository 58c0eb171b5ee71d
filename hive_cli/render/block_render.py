"""One finished markdown block rendered by Rich exactly as Rich renders it inside the whole document."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment

from hive_cli.render.parser import parsed_markdown

# Rich spaces a document's elements with a flag left by the element rendered before (a blank line follows
# everything except a thematic break), and containers decide from their children. To reproduce that for a
# block printed on its own, the block is rendered behind a one-line primer that leaves the same flag, and
# the primer's lines are dropped: (primer source, lines it renders to, top-level elements it adds).
_PRIMERS: dict[bool | None, tuple[str, int, int]] = {
    None: ("", 0, 0),
    True: ("x\n\n", 1, 1),
    False: ("***\n\n", 2, 1),
}


class RenderedBlock:
    """A block of markdown source, rendered as if it followed an element that left Rich's new-line flag `after`.

    `after` is None at the start of a document, True after most elements and False after a thematic break.
    """

    def __init__(self, source: str, *, code_theme: str = "monokai", after: bool | None = None) -> None:
        primer, self._primer_lines, primer_elements = _PRIMERS[after]
        self._markdown = parsed_markdown(primer + source, code_theme)
        self.last_element = _last_element(self._markdown, primer_elements)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from _drop_lines(console.render(self._markdown, options), self._primer_lines)


def _last_element(markdown: Markdown, skip: int) -> str | None:
    """The token type of the block's last top-level element, or None when the block has no element."""
    top_level = [token for token in markdown.parsed if token.level == 0]
    if sum(1 for token in top_level if token.nesting >= 0) <= skip:
        return None
    return top_level[-1].type


def _drop_lines(segments: Iterable[Segment], count: int) -> Iterator[Segment]:
    """The segments after the first `count` line breaks."""
    for segment in segments:
        if count == 0:
            yield segment
            continue
        text = segment.text
        breaks = text.count("\n")
        if breaks < count:
            count -= breaks
            continue
        cut = -1
        for _ in range(count):
            cut = text.index("\n", cut + 1)
        count = 0
        if cut + 1 < len(text):
            yield Segment(text[cut + 1 :], segment.style, segment.control)
