"""The usage report carries the provider's id of each model response, as the wire gave it.

The scripted server answers with ids the test chose; `hive run` with `-o json` puts each in
`usage.turns[i].response_id` (and the last one in `usage.response_id`), and `-o stream-json` on each
`turn_completed` line, through hive's own OpenAI-compatible client, its Responses API client, and litellm.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls

IDS = ("chatcmpl-first0000", "chatcmpl-second000")

CLIENTS = {
    "own chat client": ("openai/test-model", {}),
    "own responses client": ("openai/responses/test-model", {}),
    "litellm": ("openai/test-model", {"HIVE_PROVIDER_CLIENT": "litellm"}),
}


def run(server: LLMServer, cwd: Path, client: str, output: str) -> str:
    model, env = CLIENTS[client]
    (cwd / "a.txt").write_text("alpha\n")
    server.script(
        tool_calls(call("read_file", {"path": "a.txt"}), response_id=IDS[0]),
        text("It says alpha.", response_id=IDS[1]),
    )
    args = ("--model", model, "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(cwd), "-o", output)
    done = run_hive("run", "what does a.txt say?", "--yes", *args, **env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("client", list(CLIENTS))
def test_the_json_report_carries_each_turns_response_id(llm_server: LLMServer, tmp_path: Path, client: str) -> None:
    usage = json.loads(run(llm_server, tmp_path, client, "json"))["usage"]
    assert [turn["response_id"] for turn in usage["turns"]] == list(IDS)
    assert usage["response_id"] == IDS[1]


def test_each_turn_completed_line_carries_its_response_id(llm_server: LLMServer, tmp_path: Path) -> None:
    lines = json_lines(run(llm_server, tmp_path, "own chat client", "stream-json"))
    assert [line["response_id"] for line in lines if line["type"] == "turn_completed"] == list(IDS)
    finished = lines[-1]
    assert finished["type"] == "session_finished"
    assert [turn["response_id"] for turn in finished["usage"]["turns"]] == list(IDS)
