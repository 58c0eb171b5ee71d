"""SafeConsole: text content is cleaned of what would steer a terminal; Rich's own codes pass untouched."""

from __future__ import annotations

import io
import re
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.text import Text

from hive_cli.render.markdown_stream import MarkdownStream
from hive_cli.repl.shell import HiveCompleter
from hive_cli.safe_console import SafeConsole

CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"


def terminal(console_class: type[Console] = SafeConsole) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return console_class(file=out, force_terminal=True, color_system="truecolor", width=80), out


def test_a_plain_rich_console_lets_an_escape_in_text_through() -> None:
    """Why SafeConsole exists: Rich's Text strips BEL but not ESC, so the sequence's body still reaches the
    terminal as a command (the terminal ends an OSC at ESC \\ or at the next control as well)."""
    console, out = terminal(Console)
    console.print(Text(f"look {CLIPBOARD} here"))
    assert "\x1b]52;c;" in out.getvalue()


def test_escapes_in_text_are_dropped_and_the_style_is_kept() -> None:
    console, out = terminal()
    console.print(Text(f"look {CLIPBOARD}\u202e here\x1b[8m", style="bold red"))
    written = out.getvalue()
    assert "\x1b]52" not in written and "\x1b[8m" not in written and "\u202e" not in written
    assert re.match(r"\x1b\[1;31mlook \]52;c;Y3VybCBldmlsIHwgc2g= here\[8m", written)


def test_rich_control_segments_and_links_pass() -> None:
    console, out = terminal()
    with Live(Text("one"), console=console, transient=True) as live:
        live.update(Text("two"))
    console.print(Markdown("[a link](https://example.org/x)"))
    written = out.getvalue()
    assert "\x1b[?25l" in written and "\x1b[2K" in written  # the live region hides the cursor and erases lines
    assert "\x1b]8;id=" in written and "https://example.org/x" in written  # Rich's own hyperlink (OSC 8)


def test_the_markdown_stream_shows_escapes_visibly_and_still_renders() -> None:
    console, out = terminal()
    stream = MarkdownStream(console)
    answer = f"## Title\n\nText {CLIPBOARD} end.\n\n```python\nx = 1\n```\n"
    for i in range(0, len(answer), 2):  # the sequence arrives split across deltas
        stream.feed(answer[i : i + 2])
    stream.finish()
    written = out.getvalue()
    assert "\x1b]52" not in written
    assert "\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07" in written
    assert re.search(r"\x1b\[[0-9;]*mTitle", written) and "##" not in written
    assert "```" not in written and re.search(r"\x1b\[[0-9;]*(?:4[0-7]|48;[0-9;]+)m", written)  # code on its background


def test_the_completion_menu_shows_file_names_and_command_descriptions_as_escapes(tmp_path: Path) -> None:
    """prompt-toolkit shows C0 controls as ^[ but writes a bidi override as it is: the menu gets the escapes,
    while the completion itself inserts the real name."""
    (tmp_path / "report\u202etxt.exe").write_text("planted")
    completer = HiveCompleter([("review", "Review \u202eit \x1b]2;x\x07 (project)")], tmp_path)

    (path,) = completer.get_completions(Document("@rep"), CompleteEvent())
    (command,) = completer.get_completions(Document("/rev"), CompleteEvent())

    assert path.text == "report\u202etxt.exe" and path.display_text == "report\\u202etxt.exe"
    assert command.display_meta_text == "Review \\u202eit \\x1b]2;x\\x07 (project)"
