"""Golden tests: streaming markdown in deltas prints exactly what Rich prints for the whole answer."""

from __future__ import annotations

import io
import random
import re
from typing import Literal

import pytest
from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown

from hive_cli.render import live_view
from hive_cli.render.markdown_stream import MarkdownStream

WIDTH = 80

FENCES = """Here is the fix:

```python
def load(path):

    data = read(path)


    return data
```

And the shell side, in a tilde fence:

~~~bash
pip install -e .

pytest -q
~~~
Done, right after the fence.
"""

LISTS = """Steps:

1. Install the package
   - with pip
   - or with **uv**

2. Configure it:

   ```yaml
   model: gpt-4o

   retries: 3
   ```

3. Run it
- a bullet list right after
  continued
    - deeper
lazily continued

Final paragraph.
"""

TABLE_AND_HEADINGS = """| option | default | meaning |
|---|---:|---|
| `retries` | 3 | how often to **retry** |
| `timeout` | 30 | seconds |

Text after the table.
# A heading right after a paragraph
A paragraph right before a heading
## Second heading
> a quote
> on two lines

---
***
The last line has no newline"""

UNTERMINATED = 'Intro paragraph.\n\n```python\nprint("never closed")\n\nx = 1'

HTML_AND_LINKS = """<!-- a comment

across a blank line -->

See [the docs](https://example.com/docs) and ![a logo](https://example.com/logo.png).

<div>
raw html
</div>

    indented code

Setext heading
--------------
"""

DOCUMENTS = {
    "fences": FENCES,
    "lists": LISTS,
    "table_and_headings": TABLE_AND_HEADINGS,
    "unterminated": UNTERMINATED,
    "html_and_links": HTML_AND_LINKS,
}


def new_console(file: io.StringIO, color_system: Literal["standard"] | None = "standard") -> Console:
    return Console(file=file, force_terminal=True, width=WIDTH, color_system=color_system)


def without_link_ids(text: str) -> str:
    return re.sub(r"id=\d+;", "id=;", text)  # Rich numbers each hyperlink at random


def printed_whole(document: str) -> str:
    out = io.StringIO()
    new_console(out).print(Markdown(document))
    return without_link_ids(out.getvalue())


def cut(text: str, seed: int | None) -> list[str]:
    """Random deltas of 1-9 characters, or single characters when seed is None."""
    if seed is None:
        return list(text)
    rng = random.Random(seed)
    deltas, i = [], 0
    while i < len(text):
        step = rng.randint(1, 9)
        deltas.append(text[i : i + step])
        i += step
    return deltas


def streamed(deltas: list[str]) -> str:
    out = io.StringIO()
    stream = MarkdownStream(new_console(out))
    for delta in deltas:
        stream.feed(delta)
    stream.finish()
    return without_link_ids(out.getvalue())


@pytest.mark.parametrize("seed", [None, 0, 1, 2, 3])
@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_streaming_in_deltas_prints_what_rich_prints_for_the_whole_document(name: str, seed: int | None) -> None:
    document = DOCUMENTS[name]
    assert streamed(cut(document, seed)) == printed_whole(document)


def test_each_finished_block_is_printed_as_rich_prints_that_block_with_a_blank_line_between() -> None:
    blocks = ["# Title", "Some **bold** text and `code`.", "```python\nx = 1\n```"]
    expected = io.StringIO()
    console = new_console(expected)
    for i, block in enumerate(blocks):
        if i:
            console.line()
        console.print(Markdown(block))
    assert streamed(cut("\n\n".join(blocks) + "\n", seed=7)) == expected.getvalue()


def test_a_second_answer_after_finish_starts_afresh() -> None:
    out = io.StringIO()
    stream = MarkdownStream(new_console(out))
    for answer in (LISTS, FENCES):
        for delta in cut(answer, seed=5):
            stream.feed(delta)
        stream.finish()
    assert without_link_ids(out.getvalue()) == printed_whole(LISTS) + printed_whole(FENCES)


def test_an_unterminated_fence_is_printed_as_code_at_finish() -> None:
    out = io.StringIO()
    stream = MarkdownStream(new_console(out, color_system=None))
    stream.feed("```python\nprint('open')\n")
    assert "print('open')" not in out.getvalue()
    stream.finish()
    assert "print('open')" in out.getvalue()


def test_under_a_live_finished_blocks_are_printed_when_completed_not_at_finish() -> None:
    out = io.StringIO()
    console = new_console(out, color_system=None)
    stream = MarkdownStream(console)
    with Live(stream, console=console, auto_refresh=False, transient=True):
        stream.feed("```python\nfirst_block = 1\n")
        assert "first_block" not in out.getvalue()
        stream.feed("```\n\nSecond para")
        assert out.getvalue().count("first_block = 1") == 1
        assert "Second para" in out.getvalue()  # drawn live under the printed block
        stream.finish()
    assert out.getvalue().count("first_block = 1") == 1


def test_the_live_view_shows_only_the_block_in_progress() -> None:
    stream = MarkdownStream(new_console(io.StringIO()))
    stream.feed("Finished paragraph.\n\nStarted")
    view = io.StringIO()
    new_console(view, color_system=None).print(stream)
    assert view.getvalue().strip() == "Started"


def test_nothing_is_pending_between_blocks_or_after_finish() -> None:
    stream = MarkdownStream(new_console(io.StringIO()))
    assert stream.pending() is None
    stream.feed("Para\n\n")
    assert stream.pending() is None
    stream.feed("Next")
    assert stream.pending() is not None
    stream.finish()
    assert stream.pending() is None


def test_a_tall_block_in_progress_shows_only_its_last_lines_live() -> None:
    stream = MarkdownStream(new_console(io.StringIO()), max_live_lines=3)
    stream.feed("```text\n" + "".join(f"line {i}\n" for i in range(40)))
    view = io.StringIO()
    new_console(view, color_system=None).print(stream)
    lines = view.getvalue().splitlines()
    assert len(lines) == 3
    assert "line 39" in view.getvalue()


def has_colour(output: str) -> bool:
    """Whether any SGR sequence sets a foreground or background colour."""
    for params in re.findall(r"\x1b\[([0-9;]*)m", output):
        codes = [int(code) for code in params.split(";") if code]
        if any(30 <= code <= 49 or 90 <= code <= 107 for code in codes):
            return True
    return False


def test_no_color_in_the_environment_leaves_colours_out(monkeypatch: pytest.MonkeyPatch) -> None:
    document = "# Title\n\n```python\ndef f(x):\n    return x\n```\n"
    assert has_colour(streamed(cut(document, seed=1)))
    monkeypatch.setenv("NO_COLOR", "1")
    output = streamed(cut(document, seed=1))
    assert "def f(x):" in output
    assert "\x1b[" in output  # still styled (bold, underline), only without colour
    assert not has_colour(output)


TRICKY_LINES = [
    "",
    "",
    "",
    "text with **bold** and `code`",
    "# Heading",
    "## a | b",
    "```python",
    "```",
    "~~~",
    "    indented",
    "- item",
    "  - nested",
    "1. one",
    "2. two",
    "   continued",
    "> quote",
    ">",
    "> ```",
    "---",
    "***",
    "===",
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "--|--",
    "<div>",
    "<!-- c",
    "-->",
    "\tTabbed",
    "-",
]


def test_random_documents_of_tricky_lines_stream_exactly_as_rendered_whole() -> None:
    rng = random.Random(2024)
    for _ in range(120):
        lines = [rng.choice(TRICKY_LINES) for _ in range(rng.randint(1, 24))]
        document = "\n".join(lines) + rng.choice(["", "\n"])
        assert streamed(cut(document, rng.randrange(1000))) == printed_whole(document), document


def test_an_expensive_live_view_may_lag_within_a_block_but_never_outlives_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_view, "RERENDER_GAP", 1e9)  # every drawn view counts as too recent to replace
    stream = MarkdownStream(new_console(io.StringIO()))

    def drawn() -> str:
        view = io.StringIO()
        new_console(view, color_system=None).print(stream)
        return view.getvalue().strip()

    stream.feed("First paragraph")
    assert drawn() == "First paragraph"
    stream.feed(" grows")
    assert drawn() == "First paragraph"
    stream.feed("\n\nSecond")
    assert drawn() == "Second"
