"""What of a streaming reply is shown at once, and what is held back because it may be call markup."""

from __future__ import annotations

import pytest

from engine.model.text_call_client import HeldMarkup, may_open_whole_call

# (name, pieces as they stream, what each piece lets through)
CASES: list[tuple[str, list[str], list[str]]] = [
    ("prose flows", ["Hello ", "there", "."], ["Hello ", "there", "."]),
    ("a tag: prose shown, markup held", ["Let me look.\n<tool", "_call>{", '"name"'], ["Let me look.\n", "", ""]),
    ("a half tag that is not one", ["a <tool", "box> b"], ["a ", "<toolbox> b"]),
    ("a [ that is no [TOOL_CALLS]", ["see [", "1]"], ["see ", "[1]"]),
    ("mistral tag after prose", ["Ok. [TOOL_", "CALLS]read_file"], ["Ok. ", ""]),
    ("python tag", ["<|python", "_tag|>{}"], ["", ""]),
    ("a reply that opens with a brace is held", ['{"na', 'me": 1}'], ["", ""]),
    ("leading space then a brace", ["  ", "{"], ["", ""]),
    ("a fence that may hold JSON", ["```", "json\n", "{"], ["", "", ""]),
    ("a fence of code is let go", ["```", "python\n", "x = 1"], ["", "```python\n", "x = 1"]),
    ("a fence of JSON prose is let go", ["```json\n", "hello"], ["", "```json\nhello"]),
    ("a brace later in prose flows", ["x = ", "{1}"], ["x = ", "{1}"]),
]


@pytest.mark.parametrize(("pieces", "shown"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_text_is_held_only_while_it_may_be_call_markup(pieces: list[str], shown: list[str]) -> None:
    held = HeldMarkup()

    assert [held.feed(piece) for piece in pieces] == shown
    assert "".join(shown) + held.release() == "".join(pieces)
    assert held.release() == ""


@pytest.mark.parametrize("text", ["", "\n{", "`", "``", "```js", "```json\n  ["])
def test_a_reply_may_still_open_a_whole_json_call(text: str) -> None:
    assert may_open_whole_call(text) is True


@pytest.mark.parametrize("text", ["Sure", "```py", "```json\nHello", "[1, 2]", "`code`"])
def test_a_reply_that_cannot_be_a_whole_json_call(text: str) -> None:
    assert may_open_whole_call(text) is False
