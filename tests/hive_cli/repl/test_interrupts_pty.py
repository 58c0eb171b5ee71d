"""Ctrl-C, approvals, SIGTERM and a closed terminal, in a real pseudo-terminal (the REPL and ``hive run``)."""

from __future__ import annotations

import io
import signal
import time
from pathlib import Path

import pexpect
import pytest

from tests.support.llm_server import HeldReply, LLMServer, call, text, tool_calls
from tests.support.processes import gone_within, processes_with, unique_sleep
from tests.support.terminal import (
    PROMPT,
    QUESTION,
    close_terminal,
    exit_status,
    leave_repl,
    send_line,
    spawn_repl,
    spawn_run,
    wait_for_process,
)

QUICK = "sleep 0.1"
"""A command the default rules ask about that ends at once."""
UNCONFINED = ("--sandbox", "off")
"""No sandbox: nothing but hive itself stops a command when hive goes (bubblewrap dies with its parent)."""


def quit_repl(child: pexpect.spawn) -> None:
    assert leave_repl(child) == 0


def approve(child: pexpect.spawn, key: str = "y") -> None:
    child.expect(QUESTION)
    child.send(key)


def assert_closing_the_terminal_ends_it_and_the_command(child: pexpect.spawn, sleep: str) -> None:
    """Once ``sleep`` runs, close the terminal: hive ends with 129 (SIGHUP) and the command goes too."""
    wait_for_process(sleep)
    status = close_terminal(child)
    assert gone_within(sleep, 5), "closing the terminal left the command running"
    assert status == 129


def approve_and_finish(child: pexpect.spawn) -> None:
    """Allow the quick command, and wait until it ran (the answered question is drawn again as it closes).

    Not greedy: on a busy machine the timeline is drawn again after the next question is up, and a greedy
    match would run past that question to the redrawn line, leaving nothing for the next ``approve``.
    """
    approve(child)
    child.expect("✓.*?execute_command")


def test_ctrl_c_cancels_a_command_started_after_approvals_and_the_next_run_too(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    first, second = unique_sleep(), unique_sleep()
    llm_server.script(
        tool_calls(call("execute_command", {"command": QUICK}, id="q1")),
        tool_calls(call("execute_command", {"command": f"{QUICK}; {first}"}, id="s1")),
        tool_calls(call("execute_command", {"command": second}, id="s2")),
        text("not reached either"),
    )
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "run two things")
    approve_and_finish(child)
    approve(child)
    wait_for_process(first)
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect(PROMPT)
    assert gone_within(first, 5), "Ctrl-C after two approvals did not stop the command"

    send_line(child, "once more")
    approve(child)
    wait_for_process(second)
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect(PROMPT)
    assert gone_within(second, 5), "Ctrl-C in the run after an approved run did not stop the command"
    quit_repl(child)


def test_ctrl_c_at_the_question_cancels_the_run(llm_server: LLMServer, tmp_path: Path) -> None:
    sleep = unique_sleep()
    llm_server.script(tool_calls(call("execute_command", {"command": sleep})), text("not reached"))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "run it")
    child.expect(QUESTION)
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect(PROMPT)
    assert not processes_with(sleep)
    assert len(llm_server.chat_requests) == 1, "the model was asked again, as after a plain no"
    quit_repl(child)


def test_hive_run_at_a_terminal_cancels_on_ctrl_c_after_an_approval(llm_server: LLMServer, tmp_path: Path) -> None:
    sleep = unique_sleep()
    llm_server.script(
        tool_calls(call("execute_command", {"command": QUICK}, id="q1")),
        tool_calls(call("execute_command", {"command": sleep}, id="s1")),
        text("not reached"),
    )
    child = spawn_run(llm_server, tmp_path, "run two things")
    approve_and_finish(child)
    approve(child)
    wait_for_process(sleep)
    child.sendcontrol("c")
    assert exit_status(child) == 130
    assert gone_within(sleep, 5)


def test_keys_typed_before_the_question_do_not_answer_it(llm_server: LLMServer, tmp_path: Path) -> None:
    done = tmp_path / "done.txt"
    command = f"{QUICK} && touch {done}"
    answer = HeldReply(tool_calls(call("execute_command", {"command": command})))
    llm_server.script(answer, text("Finished."))
    child = spawn_repl(llm_server, tmp_path)
    child.logfile_read = transcript = io.StringIO()
    try:
        child.send("touch it\ra")  # read with the Enter: left over by the prompt
        answer.wait_arrived()
        child.send("a")  # typed while the model is still answering: waiting in the terminal
    finally:
        answer.release()
    child.expect(QUESTION)
    child.send("y")  # had an earlier "a" answered the question, this would go to the next prompt instead
    child.expect("Finished.")
    child.expect(PROMPT)
    assert done.exists()
    assert "allowed for this session" not in transcript.getvalue(), "a key pressed before the question answered it"
    assert len(llm_server.chat_requests) == 2
    quit_repl(child)


def test_sigterm_stops_the_repl_and_the_running_command(llm_server: LLMServer, tmp_path: Path) -> None:
    sleep = unique_sleep()
    llm_server.script(tool_calls(call("execute_command", {"command": sleep})), text("not reached"))
    child = spawn_repl(llm_server, tmp_path, "--yes", *UNCONFINED)
    send_line(child, "run it")
    wait_for_process(sleep)
    child.kill(signal.SIGTERM)
    status = exit_status(child)
    assert gone_within(sleep, 5), "SIGTERM left the command running"
    assert status == 143


def test_sigterm_at_the_prompt_leaves_with_143(llm_server: LLMServer, tmp_path: Path) -> None:
    child = spawn_repl(llm_server, tmp_path)
    child.kill(signal.SIGTERM)
    assert exit_status(child) == 143


@pytest.mark.parametrize("approved", [False, True], ids=["unconfined-yes-flag", "sandboxed-approved-at-the-question"])
def test_closing_the_terminal_stops_the_repl_and_the_running_command(
    llm_server: LLMServer, tmp_path: Path, approved: bool
) -> None:
    sleep = unique_sleep()
    llm_server.script(tool_calls(call("execute_command", {"command": sleep})), text("not reached"))
    child = spawn_repl(llm_server, tmp_path, *(() if approved else ("--yes", *UNCONFINED)))
    send_line(child, "run it")
    if approved:
        approve(child)
    assert_closing_the_terminal_ends_it_and_the_command(child, sleep)


def test_closing_the_terminal_stops_hive_run_and_its_command(llm_server: LLMServer, tmp_path: Path) -> None:
    sleep = unique_sleep()
    llm_server.script(tool_calls(call("execute_command", {"command": sleep})), text("not reached"))
    child = spawn_run(llm_server, tmp_path, "run it", *UNCONFINED)
    approve(child)
    assert_closing_the_terminal_ends_it_and_the_command(child, sleep)


def test_sigterm_at_the_question_stops_hive_run(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("execute_command", {"command": QUICK})), text("not reached"))
    child = spawn_run(llm_server, tmp_path, "run it")
    child.expect(QUESTION)
    child.kill(signal.SIGTERM)
    assert exit_status(child) == 143


def test_the_question_is_put_to_a_person_and_the_wait_is_not_the_run_time(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    """Judged by the order of events, not by how fast the machine is.

    The call runs between two events the test sees: the model's reply that asks for it is let go at
    ``sent``, and the next request (sent once the call ended) reaches the server at ``back``. The
    person's pause, from the question on the screen to the key, lies inside hive's wait. So, on any
    machine, hive's wait is at least the pause, and its run time plus its wait fit between ``sent`` and
    ``back``; a pause counted as run time would count twice and overflow that window.
    """
    marker = tmp_path / "ran"
    asking = HeldReply(tool_calls(call("execute_command", {"command": f"touch {marker}"})))
    answer = HeldReply(text("Done."))
    llm_server.script(asking, answer)
    child = spawn_run(llm_server, tmp_path, "run it")
    child.logfile_read = transcript = io.StringIO()
    asking.wait_arrived()
    sent = time.monotonic()
    asking.release()
    child.expect(QUESTION)
    child.expect("run this command\\?")
    asked_at = time.monotonic()
    time.sleep(1.5)  # the person's pause: what the report must show as the wait, not as run time
    assert not marker.exists(), "the command ran before the person answered"
    paused = time.monotonic() - asked_at
    child.send("y")
    answer.wait_arrived()
    back = time.monotonic()
    answer.release()
    child.expect(r"✓ execute_command \((\d+\.\d\d)s, waited (\d+\.\d)s\)")
    ran, waited = (float(group) for group in child.match.groups())
    assert marker.exists()
    assert waited >= paused - 0.05, "the wait is shorter than the pause inside it"  # shown to 1 decimal
    assert ran + waited <= back - sent + 0.06, "the pause was counted as run time too"  # shown rounded
    child.expect("Done.")
    assert exit_status(child) == 0
    assert "hitl" not in transcript.getvalue() and "mode:" not in transcript.getvalue()
