"""A prompt's slash-command arguments: by name, in order, and what is missing said with the usage."""

from __future__ import annotations

import pytest
from mcp_types import Prompt, PromptArgument

from engine.mcp.errors import CallFailed
from engine.mcp.prompts import prompt_arguments, prompt_command

WEATHER = Prompt(
    name="weather",
    arguments=[PromptArgument(name="city", required=True), PromptArgument(name="when", required=False)],
)


def test_words_in_order_the_last_argument_takes_the_rest() -> None:
    assert prompt_arguments(WEATHER, "Paris") == {"city": "Paris"}
    assert prompt_arguments(WEATHER, "Paris next week") == {"city": "Paris", "when": "next week"}
    assert prompt_arguments(WEATHER, '"New York" today') == {"city": "New York", "when": "today"}


def test_key_value_words_go_by_name() -> None:
    assert prompt_arguments(WEATHER, "when=today city=Rome") == {"city": "Rome", "when": "today"}


def test_a_missing_required_argument_is_said_with_the_usage() -> None:
    with pytest.raises(CallFailed, match=r"needs city \(usage: <city> \[when\]\)"):
        prompt_arguments(WEATHER, "")
    with pytest.raises(CallFailed, match="takes no arguments"):
        prompt_arguments(Prompt(name="plain"), "extra words")
    assert prompt_arguments(Prompt(name="plain"), "") == {}


def test_the_command_name_is_made_safe_like_tool_names() -> None:
    assert prompt_command("docs", "summarize file") == "mcp__docs__summarize_file"
