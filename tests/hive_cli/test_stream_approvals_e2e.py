"""The approval protocol of `hive run --input-format stream-json`: a real `hive` asks the test over its stdin."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer, call, text, tool_calls

ASKED_WRITE = call("write_file", {"path": "notes.txt", "content": "x"}, id="asked")
"""A write outside the project's allowed paths: the default rules ask."""


class Driver:
    """The program on the other side of hive's stdin and stdout."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.seen: list[dict[str, Any]] = []

    def send(self, record: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(record) + "\n")
        self.process.stdin.flush()

    def until(self, kind: str) -> dict[str, Any]:
        """Read lines up to (and with) the next one of ``kind``."""
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line: dict[str, Any] = json.loads(raw)
            self.seen.append(line)
            if line["type"] == kind:
                return line
        raise AssertionError(f"hive ended before a {kind} line: {self.kinds()}")

    def end(self) -> int:
        """Close stdin, read the rest, and return hive's exit status."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.seen.extend(json.loads(raw) for raw in self.process.stdout if raw.strip())
        return self.process.wait(timeout=60)

    def kinds(self) -> list[str]:
        return [line["type"] for line in self.seen]


@contextmanager
def hive_conversation(server: LLMServer, workdir: Path, *extra: str) -> Iterator[Driver]:
    args = ["run", "--input-format", "stream-json", "-o", "stream-json", "--model", "openai/test-model"]
    args += ["--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir), *extra]
    process = subprocess.Popen(
        [sys.executable, "-m", "hive_cli", *args],
        env=hive_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield Driver(process)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        for stream in (process.stdout, process.stderr, process.stdin):
            if stream is not None:
                stream.close()


def approval_order(driver: Driver) -> list[str]:
    wanted = ("approval_requested", "approval_resolved", "tool_call_finished", "run_finished", "session_finished")
    return [kind for kind in driver.kinds() if kind in wanted]


def test_an_allowed_question_runs_the_call(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(ASKED_WRITE), text("Wrote it."))
    with hive_conversation(llm_server, tmp_path) as hive:
        hive.send({"type": "user_message", "text": "write notes"})
        asked = hive.until("approval_requested")
        assert asked["tool"] == "write_file" and asked["arguments"] == {"path": "notes.txt", "content": "x"}
        assert asked["reason"] and asked["request_id"]
        hive.send({"type": "approval", "request_id": asked["request_id"], "decision": "allow"})
        resolved = hive.until("approval_resolved")
        assert resolved["allowed"] is True and resolved["request_id"] == asked["request_id"]
        assert hive.until("run_finished")["text"] == "Wrote it."
        assert hive.end() == 0

    assert (tmp_path / "notes.txt").read_text() == "x"
    assert approval_order(hive) == [
        "approval_requested",
        "approval_resolved",
        "tool_call_finished",
        "run_finished",
        "session_finished",
    ]


def test_a_denied_question_refuses_the_call_with_the_programs_reason(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(ASKED_WRITE), text("I was not allowed."))
    with hive_conversation(llm_server, tmp_path) as hive:
        hive.send({"type": "user_message", "text": "write notes"})
        asked = hive.until("approval_requested")
        hive.send({"type": "approval", "request_id": asked["request_id"], "decision": "deny", "reason": "not today"})
        finished = hive.until("tool_call_finished")
        assert finished["success"] is False and "not today" in finished["output"]
        hive.until("run_finished")
        assert hive.end() == 0

    assert not (tmp_path / "notes.txt").exists()
    assert "not today" in llm_server.chat_requests[1].messages[-1]["content"]
    assert approval_order(hive)[:3] == ["approval_requested", "approval_resolved", "tool_call_finished"]


def test_a_question_nobody_answers_in_time_is_denied(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(ASKED_WRITE), text("Timed out."), text("Still here."))
    with hive_conversation(llm_server, tmp_path, "--approval-timeout", "0.05") as hive:
        hive.send({"type": "user_message", "text": "write notes"})
        asked = hive.until("approval_requested")
        resolved = hive.until("approval_resolved")
        assert resolved["allowed"] is False and "--approval-timeout" in resolved["reason"]
        hive.until("run_finished")
        hive.send({"type": "approval", "request_id": asked["request_id"], "decision": "allow"})  # too late
        hive.send({"type": "user_message", "text": "still there?"})
        assert hive.until("run_finished")["text"] == "Still here."
        assert hive.end() == 0

    assert not (tmp_path / "notes.txt").exists()
    late = [line for line in hive.seen if line["type"] == "error"]
    assert len(late) == 1 and "no approval question" in late[0]["message"]
    assert approval_order(hive)[:4] == ["approval_requested", "approval_resolved", "tool_call_finished", "run_finished"]


def test_a_question_after_stdin_ended_is_denied_at_once(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(ASKED_WRITE), text("Nobody answered."))
    with hive_conversation(llm_server, tmp_path) as hive:  # the default timeout: only the end of input ends the wait
        hive.send({"type": "user_message", "text": "write notes"})
        assert hive.end() == 0

    resolved = next(line for line in hive.seen if line["type"] == "approval_resolved")
    assert resolved["allowed"] is False and "stdin ended" in resolved["reason"]
    assert not (tmp_path / "notes.txt").exists()
