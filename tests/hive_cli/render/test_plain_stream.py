"""Plain mode: the raw answer, exactly as it arrived, for output that is not a terminal."""

from __future__ import annotations

import io

from rich.console import Console

from hive_cli.render.markdown_stream import MarkdownStream, open_stream
from hive_cli.render.plain_stream import PlainTextStream

ANSWER = "# Title\r\n\nSome **bold** and `code` :smile: [red]not markup[/red]\n```py\nx = 1\n```\nno newline at the end"


def test_plain_stream_writes_exactly_the_input_text() -> None:
    out = io.StringIO()
    stream = PlainTextStream(Console(file=out, force_terminal=True, color_system="truecolor"))
    for i in range(0, len(ANSWER), 3):
        stream.feed(ANSWER[i : i + 3])
        assert stream.pending() is None
    stream.finish()
    assert out.getvalue() == ANSWER


def test_plain_stream_writes_each_delta_as_it_arrives() -> None:
    out = io.StringIO()
    stream = PlainTextStream(Console(file=out))
    stream.feed("Hel")
    assert out.getvalue() == "Hel"


def test_open_stream_gives_plain_text_when_the_console_is_not_a_terminal() -> None:
    out = io.StringIO()
    stream = open_stream(Console(file=out))
    assert isinstance(stream, PlainTextStream)
    stream.feed(ANSWER)
    stream.finish()
    assert out.getvalue() == ANSWER


def test_open_stream_renders_markdown_on_a_terminal_unless_plain_is_asked() -> None:
    terminal = Console(file=io.StringIO(), force_terminal=True)
    assert isinstance(open_stream(terminal), MarkdownStream)
    assert isinstance(open_stream(terminal, plain=True), PlainTextStream)
