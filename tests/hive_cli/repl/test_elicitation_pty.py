"""A server's elicitation request in the REPL at a real terminal: the form is shown (its text escaped), filled in
and sent, declined, or cancelled, and the tool's result carries the answer."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pexpect

from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.mcp_servers import EVERYTHING, PY_SERVER, require_reference_servers, trusted_project_with
from tests.support.terminal import PROMPT, QUESTION, leave_repl, send_line, spawn_repl


def asking_repl(llm_server: LLMServer, tmp_path: Path, tool: str = "ask") -> pexpect.spawn:
    """The REPL in a project with the test server, its model calling ``tool``; the form is on screen."""
    trusted_project_with(tmp_path, "py", sys.executable, PY_SERVER)
    llm_server.script(tool_calls(call(f"mcp__py__{tool}", {}, id="ask")), text("Got the answer."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/mcp")  # the server's tools are offered once it is ready: wait for that
    child.expect("py\\S*  ready|MCP server py connected")
    child.expect(PROMPT)
    send_line(child, "ask me")
    child.expect("asks you:")
    return child


def tool_result(llm_server: LLMServer) -> object:
    return json.loads(llm_server.chat_requests[1].messages[-1]["content"])


def finish(child: pexpect.spawn) -> None:
    child.expect("Got the answer.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0


def test_the_person_fills_the_form_in_and_the_tool_gets_the_values(llm_server: LLMServer, tmp_path: Path) -> None:
    child = asking_repl(llm_server, tmp_path)
    child.logfile_read = transcript = io.StringIO()
    child.expect_exact("Who are you?\\x1b[2K (the server asks)")  # shown escaped, not obeyed
    child.expect_exact("Name (Who you are): text, 1–… characters, required")
    child.expect_exact("Age: whole number, 0–150, optional, default 30")
    child.expect(QUESTION)
    child.send("a")
    child.expect("Name")
    send_line(child, "")  # a required field left empty is asked again
    child.expect("Name: required")
    send_line(child, "Ada")
    child.expect("Age")
    child.send("\x7f\x7f")  # the default is pre-filled: erase it, type another
    send_line(child, "200")
    child.expect("Age: must be at most 150")
    child.send("\x7f\x7f\x7f")  # the refused text comes back to edit
    send_line(child, "36")
    finish(child)
    assert tool_result(llm_server) == {"action": "accept", "content": {"name": "Ada", "age": 36}}
    assert "\x1b[2K (the server asks)" not in transcript.getvalue()


def test_enter_keeps_each_default_and_choices_go_by_number(llm_server: LLMServer, tmp_path: Path) -> None:
    child = asking_repl(llm_server, tmp_path, "choose")
    child.expect_exact("Colour: one of 1=red, 2=green, 3=blue, optional, default green")
    child.expect(QUESTION)
    child.send("a")
    child.expect("Colour")
    child.send("\x7f" * len("green"))
    send_line(child, "3")
    child.expect("Loud")
    send_line(child, "")
    child.expect("Extras")
    send_line(child, "")
    finish(child)
    assert tool_result(llm_server) == {
        "action": "accept",
        "content": {"colour": "blue", "loud": False, "extras": ["salt"]},
    }


def test_the_person_declines(llm_server: LLMServer, tmp_path: Path) -> None:
    child = asking_repl(llm_server, tmp_path)
    child.expect(QUESTION)
    child.send("d")
    child.expect("declined")
    finish(child)
    assert tool_result(llm_server) == {"action": "decline", "content": None}


def test_esc_cancels_the_form_halfway(llm_server: LLMServer, tmp_path: Path) -> None:
    child = asking_repl(llm_server, tmp_path)
    child.expect(QUESTION)
    child.send("a")
    child.expect("Name")
    child.send("\x1b")
    child.expect("cancelled")
    finish(child)
    assert tool_result(llm_server) == {"action": "cancel", "content": None}


def test_ctrl_c_while_a_2025_era_server_waits_takes_the_form_away_with_the_run(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    require_reference_servers()  # everything asks on its own channel, outside the tool call that caused it
    trusted_project_with(tmp_path, "everything", EVERYTHING, "stdio")
    llm_server.script(
        tool_calls(call("mcp__everything__trigger-elicitation-request", {}, id="e")), text("Next answer.")
    )
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/mcp")
    child.expect("MCP server everything connected")
    child.expect(PROMPT)
    send_line(child, "ask me through the server")
    child.expect("asks you:")
    child.expect(QUESTION)
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect(PROMPT)
    child.logfile_read = after = io.StringIO()
    send_line(child, "next")
    child.expect("Next answer.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert QUESTION not in after.getvalue() and "asks you:" not in after.getvalue()  # the form went with its run
