"""The REPL in a real pseudo-terminal against the scripted model server."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pexpect

from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.processes import gone_within, unique_sleep
from tests.support.terminal import QUESTION, leave_repl

TIMEOUT = 60


def spawn_repl(server: LLMServer, workdir: Path, *extra: str, wait: bool = True) -> pexpect.spawn:
    args = ["-m", "hive_cli", "--model", "openai/test-model", "--api-base", server.base_url, "-C", str(workdir)]
    child = pexpect.spawn(
        sys.executable,
        [*args, *extra],
        env=hive_env(TERM="xterm-256color", COLUMNS="100", LINES="30", PROMPT_TOOLKIT_NO_CPR="1"),
        encoding="utf-8",
        dimensions=(30, 100),
        timeout=TIMEOUT,
    )
    if wait:
        child.expect("›")
    return child


def send_line(child: pexpect.spawn, line: str) -> None:
    child.send(line)
    child.send("\r")


def quit_repl(child: pexpect.spawn) -> None:
    assert leave_repl(child) == 0


def test_typing_a_request_streams_the_answer_and_shows_the_usage(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Hello from the **scripted** model.", chunk_size=3))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "say hello")
    child.expect("Hello from the")
    child.expect("not priced")
    child.expect("›")
    assert llm_server.chat_requests[0].messages[-1] == {"role": "user", "content": "say hello"}
    quit_repl(child)


def test_an_approval_answered_yes_runs_and_one_answered_no_is_refused_with_the_reason(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(
        tool_calls(call("write_file", {"path": "notes.txt", "content": "first\n"}, id="w1")),
        text("Wrote it."),
        tool_calls(call("write_file", {"path": "other.txt", "content": "second\n"}, id="w2")),
        text("Understood, I will not."),
    )
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "write notes")
    child.expect(QUESTION)
    child.send("y")
    child.expect("Wrote it.")
    child.expect("›")
    assert (tmp_path / "notes.txt").read_text() == "first\n"

    send_line(child, "write another")
    child.expect(QUESTION)
    child.send("n")
    child.expect("reason")
    send_line(child, "not that file")
    child.expect("Understood")
    child.expect("›")
    assert not (tmp_path / "other.txt").exists()
    refusal = llm_server.chat_requests[3].messages[-1]
    assert refusal["role"] == "tool" and "not that file" in refusal["content"]
    quit_repl(child)


def test_ctrl_c_cancels_a_running_command_and_the_prompt_comes_back(llm_server: LLMServer, tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    sleep = unique_sleep()
    command = f"echo partial-output-kept; echo $$ > {marker}; {sleep}"
    llm_server.script(tool_calls(call("execute_command", {"command": command})), text("next"))
    child = spawn_repl(llm_server, tmp_path, "--yes")
    send_line(child, "run something slow")
    deadline = time.monotonic() + TIMEOUT
    while not (marker.exists() and marker.read_text().strip()):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child.sendcontrol("c")
    child.expect("partial-output-kept")  # the stopped command's line shows what it printed
    child.expect("cancelled")
    child.expect("›")
    assert gone_within(sleep, 5), "the cancelled command is still running"
    send_line(child, "go on")
    child.expect("next")
    child.expect("›")
    history = llm_server.chat_requests[1].messages
    result = next(m for m in history if m["role"] == "tool")
    assert "Cancelled by the user" in result["content"] and "partial-output-kept" in result["content"]
    quit_repl(child)


def test_plan_mode_offers_only_read_only_tools(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Here is the plan."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/plan")
    child.expect("mode: plan")
    send_line(child, "make a plan")
    child.expect("Here is the plan")
    child.expect("›")
    offered = {t["function"]["name"] for t in llm_server.chat_requests[0].json["tools"]}
    assert "write_file" not in offered and "execute_command" not in offered and "read_file" in offered
    quit_repl(child)


def test_continue_reopens_the_last_session_and_shows_it(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    llm_server.script(text("First answer."), text("Second answer."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "first question")
    child.expect("First answer.")
    child.expect("›")
    quit_repl(child)

    sessions = list((isolated_hive / "data" / "sessions").glob("*.jsonl"))
    assert len(sessions) == 1
    with sessions[0].open("a") as handle:
        handle.write('{"type": "message", "message": {"role": "us')  # a write cut short by a crash

    child = spawn_repl(llm_server, tmp_path, "--continue", wait=False)
    child.expect("damaged line")
    child.expect("first question")
    child.expect("First answer")
    child.expect("›")
    send_line(child, "second question")
    child.expect("Second answer.")
    child.expect("›")
    quit_repl(child)
    roles = [m["role"] for m in llm_server.chat_requests[1].messages if m["role"] != "system"]
    assert roles == ["user", "assistant", "user"]
    records = []
    for line in sessions[0].read_text().splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue  # the damaged line stays where it was; nothing after it was swallowed
    assert [r["message"]["role"] for r in records if r["type"] == "message"] == ["user", "assistant"] * 2


def test_ctrl_d_at_the_prompt_leaves_at_once(llm_server: LLMServer, tmp_path: Path) -> None:
    child = spawn_repl(llm_server, tmp_path)
    quit_repl(child)


def test_hive_run_at_a_terminal_asks_instead_of_refusing(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("write_file", {"path": "asked.txt", "content": "yes\n"})), text("Written."))
    args = ["-m", "hive_cli", "run", "write it", "--model", "openai/test-model", "--api-base", llm_server.base_url]
    child = pexpect.spawn(
        sys.executable,
        [*args, "-C", str(tmp_path)],
        env=hive_env(TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1"),
        encoding="utf-8",
        dimensions=(30, 100),
        timeout=TIMEOUT,
    )
    child.expect(QUESTION)
    child.send("y")
    child.expect("Written.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (tmp_path / "asked.txt").read_text() == "yes\n"


def test_the_slash_commands_answer_without_a_request(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Short answer."))
    child = spawn_repl(llm_server, tmp_path)
    for command, expected in [
        ("/help", "/resume"),
        ("/skills", "write-tests"),
        ("/permissions", "default action"),
        ("/compact", "Nothing to compact yet."),
        ("/sessions", "No saved sessions"),
        ("/model", "openai/test-model"),
        ("/nonsense", "Unknown command"),
    ]:
        send_line(child, command)
        child.expect(expected)
        child.expect("›")
    send_line(child, "hello")
    child.expect("Short answer.")
    child.expect("›")
    for command, expected in [("/context", "system prompt"), ("/cost", "session:"), ("/clear", "New conversation")]:
        send_line(child, command)
        child.expect(expected)
        child.expect("›")
    quit_repl(child)


def test_pasted_lines_and_alt_enter_stay_one_message(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Got the paste."), text("Got both lines."))
    child = spawn_repl(llm_server, tmp_path)
    child.send("\x1b[200~first pasted line\nsecond pasted line\x1b[201~")  # a bracketed paste
    child.send("\r")
    child.expect("Got the paste.")
    child.expect("›")
    child.send("line one")
    child.send("\x1b\r")  # Alt+Enter: a newline, not a send
    child.send("line two\r")
    child.expect("Got both lines.")
    child.expect("›")
    assert llm_server.chat_requests[0].messages[-1]["content"] == "first pasted line\nsecond pasted line"
    assert llm_server.chat_requests[1].messages[-1]["content"] == "line one\nline two"
    quit_repl(child)


def test_ctrl_c_twice_at_an_empty_prompt_leaves(llm_server: LLMServer, tmp_path: Path) -> None:
    child = spawn_repl(llm_server, tmp_path)
    child.sendcontrol("c")
    child.expect("Ctrl-C again to exit")
    child.expect("›")  # a person's second press comes after the prompt is back
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
