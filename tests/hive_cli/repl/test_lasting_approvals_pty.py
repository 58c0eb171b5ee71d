"""An "always in this project" answer in a real terminal holds in the next REPL session."""

from __future__ import annotations

from pathlib import Path

import yaml

from engine.policy.local_rules import local_file
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.terminal import PROMPT, QUESTION, leave_repl, send_line, spawn_repl


def test_always_in_this_project_holds_in_the_next_session(llm_server: LLMServer, tmp_path: Path) -> None:
    write = call("write_file", {"path": "notes.txt", "content": "first\n"}, id="w1")
    llm_server.script(tool_calls(write), text("Wrote it."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "write notes")
    child.expect(QUESTION)
    child.expect("always in this project")
    child.send("p")
    child.expect("Wrote it.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    saved = yaml.safe_load(local_file(tmp_path).read_text())
    assert saved == {"permissions": {"edit": [{"pattern": "notes.txt", "action": "allow", "exact": True}]}}

    again = call("write_file", {"path": "notes.txt", "content": "second\n"}, id="w2")
    llm_server.script(tool_calls(again), text("Wrote it again."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "write notes again")
    assert child.expect([QUESTION, "Wrote it again."]) == 1
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert (tmp_path / "notes.txt").read_text() == "second\n"


def test_deny_always_in_this_project_refuses_in_the_next_session_without_asking(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write = call("write_file", {"path": "notes.txt", "content": "first\n"}, id="w1")
    llm_server.script(tool_calls(write), text("I will not."), tool_calls(write), text("Refused again."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "write notes")
    child.expect(QUESTION)
    child.send("d")
    child.expect("I will not.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "write notes")
    assert child.expect([QUESTION, "Refused again."]) == 1
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert not (tmp_path / "notes.txt").exists()
    refusal = llm_server.chat_requests[3].messages[-1]
    assert "denied by policy" in refusal["content"] and "notes.txt" in refusal["content"]
