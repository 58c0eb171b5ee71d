"""The usage text: "?" for counts nobody reported, "~" before estimated ones, never a made-up 0."""

from __future__ import annotations

from engine.usage import Usage
from hive_cli.output.summaries import tokens_text, total_tokens_text


def test_reported_counts_are_shown_as_they_are() -> None:
    usage = Usage(prompt_tokens=1234, completion_tokens=56, calls=1)
    assert (tokens_text(usage), total_tokens_text(usage)) == ("1,234 in / 56 out", "1,290 tokens")


def test_estimated_counts_get_a_tilde() -> None:
    usage = Usage(prompt_tokens=1234, completion_tokens=56, calls=1, estimated=True)
    assert (tokens_text(usage), total_tokens_text(usage)) == ("~1,234 in / ~56 out", "~1,290 tokens")


def test_unreported_counts_are_a_question_mark_not_zero() -> None:
    usage = Usage(calls=1)
    assert (tokens_text(usage), total_tokens_text(usage)) == ("? in / ? out", "? tokens")
