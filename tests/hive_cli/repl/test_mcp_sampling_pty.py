"""A server asks to use the model, in the REPL at a real terminal: the person sees what it sends and answers y or n."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pexpect

from engine.mcp.sampling import DECLINED
from tests.support.llm_server import LLMServer, Usage, call, text, tool_calls
from tests.support.mcp_servers import EVERYTHING, PY_SERVER, require_reference_servers, trusted_project_with
from tests.support.terminal import PROMPT, QUESTION, leave_repl, send_line, spawn_repl

HIDDEN = "\x1b[8m"
"""Concealed text: a terminal that obeys it shows nothing of what follows."""
ASKED = "MCP server py\\S* asks to use the model"
"""The question's first line (the server's name is in bold: a colour code ends it)."""
TERMINAL_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|[\r\n]")


def _repl(llm_server: LLMServer, tmp_path: Path) -> pexpect.spawn:
    trusted_project_with(tmp_path, "py", sys.executable, PY_SERVER)
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/mcp")  # opens the session: the server connects in the background
    child.expect("MCP server py connected")
    child.expect(PROMPT)
    return child


def _tool_result(llm_server: LLMServer, index: int) -> str:
    message = llm_server.chat_requests[index].messages[-1]
    assert message["role"] == "tool"
    return str(message["content"])


def test_allowed_the_server_gets_the_models_answer_and_cost_shows_what_it_spent(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(
        tool_calls(
            call("mcp__py__summarize", {"text": f"bees {HIDDEN}secret"}, id="s"),
            usage=Usage(prompt_tokens=1000, completion_tokens=10),
        ),
        text("Bees, briefly.", usage=Usage(prompt_tokens=40, completion_tokens=4)),
        text("The server summarized it.", usage=Usage(prompt_tokens=2000, completion_tokens=20)),
    )
    child = _repl(llm_server, tmp_path)
    child.logfile_read = transcript = io.StringIO()
    send_line(child, "summarize bees")
    child.expect(ASKED)
    child.expect("answered by openai/test-model, at most 50 tokens")
    child.expect("the server would prefer claude-haiku")
    child.expect("never gets it")
    child.expect(QUESTION)
    child.send("y")
    child.expect("The server summarized it.")
    child.expect("3,040 in / 34 out")  # the run's own line counts what the server's request spent
    child.expect(PROMPT)
    send_line(child, "/cost")
    child.expect("mcp:py sampling: ")
    child.expect("1 model calls")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    shown = TERMINAL_CODES.sub("", transcript.getvalue())
    assert HIDDEN not in transcript.getvalue() and "bees \\x1b[8msecret" in shown
    sampled = llm_server.chat_requests[1]
    assert sampled.messages[-1] == {"role": "user", "content": f"bees {HIDDEN}secret"}
    assert sampled.json["max_tokens"] == 50
    assert json.loads(_tool_result(llm_server, 2))["text"] == "Bees, briefly."
    assert "Bees, briefly." not in json.dumps(llm_server.chat_requests[2].messages[:-1])  # only via the tool


def test_refused_the_server_is_told_no_and_the_model_is_not_asked_for_it(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("mcp__py__summarize", {"text": "bees"}, id="s")), text("It was refused."))
    child = _repl(llm_server, tmp_path)
    send_line(child, "summarize bees")
    child.expect(ASKED)
    child.expect(QUESTION)
    child.send("n")
    child.expect("refused: the server is told no")
    child.expect("It was refused.")
    child.expect(PROMPT)
    send_line(child, "/cost")
    child.expect("session: ")
    child.expect(PROMPT)
    assert "mcp:py sampling" not in (child.before or "")
    assert leave_repl(child) == 0
    assert len(llm_server.chat_requests) == 2
    assert DECLINED in _tool_result(llm_server, 1)


def test_ctrl_c_while_a_2025_era_server_waits_withdraws_the_question_with_the_run(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    require_reference_servers()  # everything asks on its own channel, outside the tool call that caused it
    trusted_project_with(tmp_path, "everything", EVERYTHING, "stdio")
    llm_server.script(
        tool_calls(call("mcp__everything__trigger-sampling-request", {"prompt": "hi"}, id="s")), text("Next answer.")
    )
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/mcp")
    child.expect("MCP server everything connected")
    child.expect(PROMPT)
    send_line(child, "ask the server")
    child.expect("asks to use the model")
    child.expect(QUESTION)
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect(PROMPT)
    child.logfile_read = after = io.StringIO()
    send_line(child, "next")
    child.expect("Next answer.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert QUESTION not in after.getvalue()  # the question went with its run: nothing asks at the next prompt
    assert len(llm_server.chat_requests) == 2  # the model was never asked on the server's behalf
