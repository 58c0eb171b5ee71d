"""Where the incremental splitter ends blocks, checked on the released block sources."""

from __future__ import annotations

import random

from hive_cli.render.blocks import BlockSplitter


def released(*deltas: str) -> list[str]:
    splitter = BlockSplitter()
    blocks: list[str] = []
    for delta in deltas:
        blocks += splitter.feed(delta)
    return blocks


def split_all(text: str) -> list[str]:
    splitter = BlockSplitter()
    return [*splitter.feed(text), splitter.flush()]


def test_a_paragraph_is_released_at_the_blank_line_after_it() -> None:
    assert released("First line\nsecond line\n") == []
    assert released("First line\nsecond line\n\n") == ["First line\nsecond line\n"]


def test_a_fence_stays_one_block_across_blank_lines_and_is_released_at_its_closing_fence() -> None:
    fence = "```python\ndef f():\n\n\n    return 1\n```\n"
    assert released(fence[:-5]) == []
    assert released(fence) == [fence]


def test_a_tilde_fence_is_closed_only_by_tildes_at_least_as_long() -> None:
    assert released("~~~~bash\necho hi\n```\n~~~\n") == []
    assert released("~~~~bash\necho hi\n```\n~~~\n~~~~~\n") == ["~~~~bash\necho hi\n```\n~~~\n~~~~~\n"]


def test_a_heading_is_released_as_soon_as_its_line_ends() -> None:
    assert released("## Install") == []
    assert released("## Install\n") == ["## Install\n"]


def test_a_heading_ends_a_paragraph_without_a_blank_line() -> None:
    assert released("Some text\n# Title\n") == ["Some text\n", "# Title\n"]


def test_a_fence_ends_a_paragraph_without_a_blank_line() -> None:
    assert released("Run:\n```bash\nls\n```\n") == ["Run:\n", "```bash\nls\n```\n"]


def test_a_loose_nested_list_stays_together_until_an_unindented_line_after_a_blank() -> None:
    text = "1. one\n   - nested\n\n   more of one\n\n2. two\n\n   ```py\n   x = 1\n\n   ```\n\n"
    assert released(text) == []
    assert released(text + "After.\n") == [text]


def test_a_list_ends_at_a_heading_even_without_a_blank_line() -> None:
    assert released("- a\n- b\n# Next\n") == ["- a\n- b\n", "# Next\n"]


def test_an_unindented_line_right_after_a_list_item_is_kept_as_its_lazy_continuation() -> None:
    assert released("- item\ncontinued\n") == []


def test_a_table_ends_at_a_blank_line() -> None:
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert released(table) == []
    assert released(table + "\n") == [table]


def test_a_line_without_pipes_under_a_table_is_a_row_as_markdown_it_reads_it() -> None:
    table = "| a | b |\n|---|---|\nplain line\n"
    assert released(table + "\n") == [table]


def test_a_quote_with_lazy_lines_stays_together_until_a_blank_line() -> None:
    assert released("> quoted\nlazy line\n> more\n\n") == ["> quoted\nlazy line\n> more\n"]


def test_a_setext_heading_is_released_at_the_next_line() -> None:
    assert released("Title\n=====\n") == []
    assert released("Title\n=====\nText\n") == ["Title\n=====\n"]


def test_an_html_comment_spans_blank_lines() -> None:
    assert released("<!-- note\n\nstill a comment\n-->\n") == ["<!-- note\n\nstill a comment\n-->\n"]


def test_a_heading_with_a_pipe_waits_for_the_next_line_in_case_it_heads_a_table() -> None:
    assert released("# a | b\n") == []
    assert released("# a | b\n--|--\n| 1 | 2 |\n\n") == ["# a | b\n--|--\n| 1 | 2 |\n"]


def test_the_block_in_progress_includes_the_unfinished_line() -> None:
    splitter = BlockSplitter()
    splitter.feed("Para\n\n```py\nx = 1\ny =")
    assert splitter.pending() == "```py\nx = 1\ny ="


def test_flush_returns_the_rest_and_starts_over() -> None:
    splitter = BlockSplitter()
    splitter.feed("```py\nunterminated\n\nx")
    assert splitter.flush() == "```py\nunterminated\n\nx"
    assert splitter.pending() == ""
    assert splitter.feed("# Fresh\n") == ["# Fresh\n"]


def test_how_the_text_is_cut_into_deltas_does_not_change_the_blocks() -> None:
    text = "# T\nPara **bold**\n\n- a\n  - b\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n\n```\ntail"
    whole = split_all(text)
    for seed in range(5):
        rng = random.Random(seed)
        splitter = BlockSplitter()
        blocks: list[str] = []
        i = 0
        while i < len(text):
            step = rng.randint(1, 6)
            blocks += splitter.feed(text[i : i + step])
            i += step
        assert [*blocks, splitter.flush()] == whole


def test_the_live_tail_of_a_long_fence_keeps_its_opening_line_and_last_lines() -> None:
    splitter = BlockSplitter()
    splitter.feed("```python\n" + "".join(f"x{i} = {i}\n" for i in range(50)) + "y =")
    assert splitter.pending_tail(3) == "```python\nx47 = 47\nx48 = 48\nx49 = 49\ny ="
    assert splitter.pending_tail(100) == splitter.pending()
