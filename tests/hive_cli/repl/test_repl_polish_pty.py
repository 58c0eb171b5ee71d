"""What a newcomer meets in the REPL: attachments that respect the rules, a missing model said at once, resumes."""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect

from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.terminal import PROMPT, leave_repl, send_line, spawn_repl

TIMEOUT = 60


def spawn(workdir: Path, *args: str, wait: bool = True) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "hive_cli", "-C", str(workdir), *args],
        env=hive_env(TERM="xterm-256color", COLUMNS="100", LINES="30", PROMPT_TOOLKIT_NO_CPR="1"),
        encoding="utf-8",
        dimensions=(30, 100),
        timeout=TIMEOUT,
    )
    if wait:
        child.expect("›")
    return child


def model(server: LLMServer) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url]


def quit_repl(child: pexpect.spawn) -> None:
    leave_repl(child)


def test_attachments_pass_the_read_rules_and_what_is_left_out_is_said(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("NOTES-CONTENT\n")
    (tmp_path / ".env").write_text("TOKEN=ENV-SECRET-CONTENT\n")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.pem").write_text("PEM-SECRET-CONTENT\n")
    llm_server.script(text("Read them."))
    child = spawn(tmp_path, *model(llm_server))
    child.send("look at @notes.md @.env @secrets/key.pem @missing.txt\r")
    child.expect("attach .env")
    child.send("n")
    child.send("\r")  # no reason for the model
    child.expect("@.env: not attached")
    child.expect("@secrets/key.pem: not attached \\(denied")
    child.expect("@missing.txt: no such file, not attached")
    child.expect("Read them.")
    child.expect("›")
    quit_repl(child)
    sent = llm_server.chat_requests[0].messages[-1]["content"]
    assert "NOTES-CONTENT" in sent
    assert "ENV-SECRET-CONTENT" not in sent and "PEM-SECRET-CONTENT" not in sent


def test_no_model_is_said_at_start_in_repl_terms(tmp_path: Path) -> None:
    child = spawn(tmp_path)
    child.expect("No model is configured")
    child.expect("/model openai/gpt-4o")
    quit_repl(child)


def test_a_resumed_session_shows_a_refused_call_as_refused(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("execute_command", {"command": "sudo ls"})), text("It was refused."))
    done = run_hive("run", "try sudo", *model(llm_server), "-C", str(tmp_path))
    assert done.returncode == 0, done.stderr
    child = spawn(tmp_path, *model(llm_server), "--continue", wait=False)
    child.expect("✗ execute_command sudo ls")
    child.expect("not run: denied by policy")
    child.expect("›")
    quit_repl(child)


def test_help_lists_undo_and_rewind_and_undo_says_when_there_is_nothing(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--model", "openai/test-model", "--api-base", "http://127.0.0.1:9/v1")
    child.send("/help\r")
    child.expect("/undo")
    child.expect("/rewind")
    child.expect("›")
    child.send("/undo\r")
    child.expect("Nothing to undo in this directory")
    child.expect("›")
    quit_repl(child)


def test_until_the_answer_starts_a_line_says_what_hive_waits_for_and_counts_the_reasoning(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    reasoning = "Weighing the two options carefully before answering. " * 12
    answer = text("Option two.", reasoning=reasoning, chunk_size=8, delay=1.5, first_chunk_delay=1.5, chunk_delay=0.02)
    llm_server.script(answer)
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "which option?")
    child.expect(r"Connecting to openai/test-model \d+s")  # no response headers yet
    child.expect(r"openai/test-model is thinking \d+s(?! ·)")  # the server answered; nothing streamed yet
    child.expect(r"openai/test-model is thinking \d+s · ~[\d,]+ reasoning tokens")
    child.expect("Option two.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
