"""`hive run` against a server that streams no usage: the tokens are counted locally and marked estimated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, raw_sse, text


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def chunk(content: str, finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": {"content": content}, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "model": "test-model", "choices": [choice]}


ANSWER = "The answer is forty-two, as the guide says."


def test_json_usage_is_estimated_with_counts_close_to_the_servers_own(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text(ANSWER))  # the scripted server reports about four characters a token
    reported = json.loads(run_hive("run", "hello", "-o", "json", *model_args(llm_server, tmp_path)).stdout)["usage"]
    llm_server.script(raw_sse(chunk(ANSWER), chunk("", "stop")))
    done = run_hive("run", "hello", "-o", "json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    usage = json.loads(done.stdout)["usage"]
    assert reported["total"]["estimated"] is False
    assert usage["total"]["estimated"] is True and usage["turns"][0]["estimated"] is True
    for kind in ("prompt_tokens", "completion_tokens"):
        ours, theirs = usage["total"][kind], reported["total"][kind]
        assert theirs / 2 <= ours <= theirs * 2, (kind, ours, theirs)
    assert usage["total"]["prompt_tokens"] > 100  # the system prompt and the tools were counted, not only "hello"


def test_stream_json_marks_the_turns_usage_estimated(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(raw_sse(chunk(ANSWER), chunk("", "stop")))
    done = run_hive("run", "hello", "-o", "stream-json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    turn = next(line for line in json_lines(done.stdout) if line["type"] == "turn_completed")
    assert turn["usage"]["estimated"] is True and turn["usage"]["completion_tokens"] > 0


def test_the_text_summary_puts_a_tilde_before_estimated_counts(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(raw_sse(chunk(ANSWER), chunk("", "stop")))
    done = run_hive("run", "hello", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith("hive: tokens"))
    assert line.startswith("hive: tokens ~") and " / ~" in line and " 0 in" not in line
