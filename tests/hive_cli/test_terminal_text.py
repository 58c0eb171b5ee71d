"""What ``visible`` makes of text that would steer a terminal: every such character shown, ordinary text untouched."""

from __future__ import annotations

import json

import pytest

from hive_cli.terminal_text import (
    VisibleStream,
    echo,
    echo_json,
    inert,
    shown_json,
    visible,
    visible_markdown,
    write_shown,
)


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


def test_a_stream_shows_a_sequence_split_across_pieces_and_keeps_a_split_crlf() -> None:
    stream = VisibleStream()
    pieces = ["line one\r", "\nOSC \x1b", "]52;c;eA==\x07 and cover\r", "over\r"]
    shown = "".join(stream.feed(piece) for piece in pieces) + stream.flush()
    assert shown == "line one\r\nOSC \\x1b]52;c;eA==\\x07 and cover␍over␍"


def test_visible_markdown_keeps_line_endings_tabs_and_markdown_syntax() -> None:
    source = "# Title\r\n\n```sh\n\techo hi\x1b[8m\n```\n"
    assert visible_markdown(source) == "# Title\r\n\n```sh\n\techo hi\\x1b[8m\n```\n"


@pytest.mark.parametrize("value", [{"text": "a\x1b]52;c;eA==\x07b"}, ["\u202eexe.txt", "\x9b31m", "del\x7f", "é"]])
def test_shown_json_is_the_same_json_with_nothing_raw_for_a_terminal(value: object) -> None:
    encoded = shown_json(json.dumps(value, ensure_ascii=False, indent=2))
    assert json.loads(encoded) == value
    assert visible(encoded, keep_newlines=True) == encoded  # no control or bidi character is left raw
    assert "é" in encoded or "é" not in json.dumps(value, ensure_ascii=False)  # ordinary text stays as it is


def test_inert_drops_control_and_bidi_characters_but_keeps_newlines_and_tabs() -> None:
    assert inert("a\x1b]2;t\x07\tb\u202ec\r\nd\x9b") == "a]2;t\tbc\nd"


def test_echo_writes_through_visible_to_stdout_or_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    echo("name \x1b]2;x\x07")
    echo("err\u202e", err=True)
    echo("no newline\tkept", nl=False)
    echo_json('{"a": "\u202e"}')
    out, err = capsys.readouterr()
    assert out == 'name \\x1b]2;x\\x07\nno newline\tkept{"a": "\\u202e"}\n'
    assert err == "err\\u202e\n"


def test_a_closed_stream_gets_nothing() -> None:
    write_shown(None, "text")  # as click.echo does when there is no standard output
