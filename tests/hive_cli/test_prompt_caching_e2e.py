"""Prompt caching on Claude models: breakpoints on the tools, the system prompt and the latest messages; cached
tokens in the usage report. The same through hive's own Anthropic client and through litellm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cassettes import CASSETTE_DIR, ReplayServer, load_cassette
from tests.support.cli import run_hive

CACHE_READ = load_cassette(CASSETTE_DIR / "anthropic/stream_cache_write_then_read.yaml")[1:]
BREAKPOINT = {"type": "ephemeral"}


@pytest.mark.parametrize("client", ["hive", "litellm"])
def test_a_claude_request_carries_cache_breakpoints_and_the_report_shows_the_cached_tokens(
    client: str, tmp_path: Path
) -> None:
    env = {"HIVE_PROVIDER_CLIENT": "litellm"} if client == "litellm" else {}
    with ReplayServer(CACHE_READ) as server:
        args = ["--model", "anthropic/claude-haiku-4-5", "--api-base", server.url, "--api-key", "sk-test"]
        done = run_hive("run", "What do the articles say?", "-o", "json", *args, "-C", str(tmp_path), **env)
        sent = server.requests

    assert done.returncode == 0, done.stderr
    body = sent[0].json
    assert body["tools"][-1]["cache_control"] == BREAKPOINT
    assert all("cache_control" not in tool for tool in body["tools"][:-1])
    assert body["system"][-1]["cache_control"] == BREAKPOINT
    assert body["messages"][-1]["content"][-1] == {
        "type": "text",
        "text": "What do the articles say?",
        "cache_control": BREAKPOINT,
    }
    usage = json.loads(done.stdout)["usage"]["total"]
    assert usage["cached_read_tokens"] == 1165


def test_an_openai_request_gets_no_breakpoints_and_its_automatic_cache_is_reported(tmp_path: Path) -> None:
    with ReplayServer(CASSETTE_DIR / "openai/stream_text_cached_prompt_tokens.yaml") as server:
        args = ["--model", "openai/gpt-4o-mini", "--api-base", server.url + "/v1", "--api-key", "sk-test"]
        done = run_hive("run", "hello", "-o", "json", *args, "-C", str(tmp_path))
        sent = server.requests

    assert done.returncode == 0, done.stderr
    assert "cache_control" not in json.dumps(sent[0].json)
    assert json.loads(done.stdout)["usage"]["total"]["cached_read_tokens"] > 0
