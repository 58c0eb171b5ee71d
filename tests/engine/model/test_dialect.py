"""What hive learns from a server's refusals, and how it keeps it (real files in a temporary cache folder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.model import dialect_memory
from engine.model.dialect import ServerFacts, WireShape, lesson_from, sendable_messages, shape_for

STREAMED = WireShape(streamed=True, asks_usage=True)
SERVER = "http://127.0.0.1:8080/v1"


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "cache"
    dialect_memory.keep_in(lambda: folder)
    yield folder
    dialect_memory.keep_in(None)


@pytest.mark.parametrize(
    ("message", "has_tools", "lesson"),
    [
        ('{"error":{"message":"Automatic streaming tool choice is not supported"}}', True, "no_streaming_with_tools"),
        ("streaming is not supported when tools are given", True, "no_streaming_with_tools"),
        ("Automatic streaming tool choice is not supported", False, None),  # no tools: another shape cannot help
        ("Unrecognized request argument supplied: stream_options", True, "no_stream_options"),
        ("1 validation error: stream_options: Extra inputs are not permitted", False, "no_stream_options"),
        ("The server had an error while processing your request", True, None),
        ("the request exceeds the available context size, try increasing it", True, None),
    ],
)
def test_a_refusal_teaches_only_what_it_names(message: str, has_tools: bool, lesson: str | None) -> None:
    assert lesson_from(message, STREAMED, has_tools=has_tools) == lesson


def test_an_unstreamed_request_learns_nothing_about_streaming() -> None:
    whole = WireShape(streamed=False, asks_usage=False)
    assert lesson_from("Automatic streaming tool choice is not supported", whole, has_tools=True) is None
    assert lesson_from("Unrecognized request argument supplied: stream_options", whole, has_tools=True) is None


def test_a_server_that_refuses_streaming_with_tools_still_streams_requests_without_tools() -> None:
    facts = ServerFacts().taught("no_streaming_with_tools")
    assert shape_for(streaming=True, has_tools=True, facts=facts) == WireShape(streamed=False, asks_usage=False)
    assert shape_for(streaming=True, has_tools=False, facts=facts) == STREAMED


def test_null_content_is_sent_as_an_empty_string_and_nothing_else_changes() -> None:
    calls = [{"id": "a", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "a", "content": "x"},
    ]
    sent = sendable_messages(messages)
    assert sent[1] == {"role": "assistant", "content": "", "tool_calls": calls}
    assert sent[0] is messages[0] and sent[2] is messages[2]
    assert messages[1]["content"] is None  # the history itself is not changed


def test_what_is_learned_is_read_back_by_a_later_run(cache: Path) -> None:
    dialect_memory.learn(SERVER + "/", "openai/small", "no_streaming_with_tools")
    dialect_memory.keep_in(lambda: cache)  # a new run: nothing in memory, the file is read

    assert dialect_memory.facts_for(SERVER, "openai/small") == ServerFacts(streams_with_tools=False)
    assert dialect_memory.facts_for(SERVER, "openai/other") == ServerFacts()
    assert (cache / dialect_memory.DIALECTS_FILE).stat().st_mode & 0o077 == 0


def test_two_runs_learning_different_things_keep_both(cache: Path) -> None:
    dialect_memory.learn(SERVER, "openai/small", "no_streaming_with_tools")
    dialect_memory.keep_in(lambda: cache)
    dialect_memory.facts_for(SERVER, "openai/small")  # this run read the file before the other one wrote
    other = cache / dialect_memory.DIALECTS_FILE
    other.write_text(other.read_text().replace('"accepts_stream_options": true', '"accepts_stream_options": false'))

    dialect_memory.learn(SERVER, "openai/big", "no_stream_options")
    dialect_memory.keep_in(lambda: cache)

    assert dialect_memory.facts_for(SERVER, "openai/small") == ServerFacts(
        streams_with_tools=False, accepts_stream_options=False
    )
    assert dialect_memory.facts_for(SERVER, "openai/big") == ServerFacts(accepts_stream_options=False)


@pytest.mark.parametrize("content", ["not json", '{"servers": 3}', '["a"]', ""])
def test_a_damaged_file_means_nothing_learned(cache: Path, content: str) -> None:
    cache.mkdir()
    (cache / dialect_memory.DIALECTS_FILE).write_text(content)

    assert dialect_memory.facts_for(SERVER, "openai/small") == ServerFacts()
    dialect_memory.learn(SERVER, "openai/small", "no_stream_options")
    dialect_memory.keep_in(lambda: cache)
    assert dialect_memory.facts_for(SERVER, "openai/small") == ServerFacts(accepts_stream_options=False)
