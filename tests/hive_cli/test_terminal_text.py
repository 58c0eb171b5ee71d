"""What ``visible`` makes of text that would steer a terminal: every such character shown, ordinary text untouched."""

from __future__ import annotations

import pytest

from hive_cli.terminal_text import visible


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[8mhidden\x1b[0m", "\\x1b[8mhidden\\x1b[0m"),
        ("cover\rover", "cover␍over"),
        ("\u202eexe.txt", "\\u202eexe.txt"),
        ("zero\u200bwidth\ufeff", "zero\\u200bwidth\\ufeff"),
        ("\x9b31m", "\\x9b31m"),  # the one-byte C1 form of ESC [
        ("ünïcödé → ok", "ünïcödé → ok"),
    ],
)
def test_control_and_bidi_characters_are_shown_as_escapes(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_newlines_and_tabs_are_escaped_unless_kept() -> None:
    assert visible("a\tb\nc") == "a\\x09b\\nc"
    assert visible("a\tb\nc", keep_newlines=True, keep_tabs=True) == "a\tb\nc"
