"""A request the provider refuses as too long is compacted into a task ledger and retried once."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, call, context_overflow, text, tool_calls
from tests.support.trust import trust

GOAL = "Rename the helper in src/util.py to parse_line and update every caller."


def test_an_overflow_compacts_into_a_ledger_that_keeps_the_goal_and_the_run_goes_on(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "util.py").write_text("def helper(line):\n    return line.split()\n")
    rounds = [tool_calls(call("read_file", {"path": "src/util.py"}, id=f"r{i}")) for i in range(4)]
    llm_server.script(
        *rounds,
        context_overflow(limit=16_384, used=16_419),  # a window the fixed part fits in: the conversation is compacted
        text("Decisions made:\n- read src/util.py four times\nState of the work: about to rename."),
        text("Renamed."),
    )
    args = ["--model", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(tmp_path)]
    done = run_hive("run", GOAL, "--yes", "-o", "stream-json", *args)

    assert done.returncode == 0, done.stderr
    compacted = [line for line in json_lines(done.stdout) if line["type"] == "context_compacted"]
    assert [(c["reason"], c["summarised_messages"], c["kept_messages"]) for c in compacted] == [("overflow", 3, 6)]
    summary_usage = compacted[0]["usage"]
    assert summary_usage["calls"] == 1 and summary_usage["prompt_tokens"] > 0
    finished = json_lines(done.stdout)[-1]
    assert finished["usage"]["total"]["calls"] == 6  # 5 answered model turns and the summary call
    requests = llm_server.chat_requests
    summariser, retried = requests[5], requests[6]
    assert "task ledger" in summariser.messages[0]["content"] and "tools" not in summariser.json
    assert "read_file" in summariser.messages[1]["content"]
    first = retried.messages[1]["content"]  # after the system prompt: the ledger stands for the old part
    assert f"> {GOAL}" in first and "about to rename" in first
    assert retried.messages[2]["role"] == "assistant" and retried.messages[-1]["tool_call_id"] == "r3"
    assert len(retried.messages) == 2 + 6


def test_a_request_past_compact_at_is_compacted_before_it_is_sent(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("word " * 3000)
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text(
        "context:\n  context_window: 9000\n  compact_at: 0.5\n  fixed_part_share: 0.9\n"
    )
    rounds = [tool_calls(call("read_file", {"path": "big.txt"}, id=f"b{i}")) for i in range(3)]
    llm_server.script(*rounds, text("Files touched:\n- big.txt read three times"), text("Done."))
    args = ["--model", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(tmp_path)]
    trust(tmp_path)
    done = run_hive("run", GOAL, "--yes", "-o", "stream-json", *args)

    assert done.returncode == 0, done.stderr
    compacted = [line for line in json_lines(done.stdout) if line["type"] == "context_compacted"]
    assert [c["reason"] for c in compacted] == ["threshold"]
    summariser = next(r for r in llm_server.chat_requests if "task ledger" in str(r.messages[0]["content"]))
    after = llm_server.chat_requests[llm_server.chat_requests.index(summariser) + 1]
    assert f"> {GOAL}" in after.messages[1]["content"]
