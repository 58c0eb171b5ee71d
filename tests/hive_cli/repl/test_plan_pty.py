"""Plan mode in the REPL: the agent's checklist approved, then executed step by step with items ticked off."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.planning import planning_replies
from tests.support.processes import gone_within, unique_sleep
from tests.support.terminal import PROMPT, leave_repl, send_line, spawn_repl, wait_for_process


def test_a_plan_approved_in_plan_mode_is_executed_in_work_mode_ticking_items_off(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(
        *planning_replies(),
        tool_calls(call("write_file", {"path": "notes.txt", "content": "notes\n"})),
        text("Wrote notes.txt."),
        text("The notes say: notes."),
    )
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/plan")
    child.expect("mode: plan")
    send_line(child, "plan the notes")
    child.expect("Here is the plan.")
    child.expect(r"\[ \] Summarise the notes")
    child.expect("Approve this plan?")
    child.send("y")
    child.expect("mode: work")
    child.expect("Step 1 of 2: Write notes.txt")
    child.expect("write this file?")  # the step's own approvals reach the person as usual
    child.send("y")
    child.expect("Wrote notes.txt.")
    child.expect(r"\[x\] Write notes.txt")
    child.expect("Step 2 of 2: Summarise the notes")
    child.expect(r"\[x\] Summarise the notes")
    child.expect("Plan done: 2 of 2 steps.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0

    assert (tmp_path / "notes.txt").read_text() == "notes\n"
    planning = {t["function"]["name"] for t in llm_server.chat_requests[0].json["tools"]}
    working = {t["function"]["name"] for t in llm_server.chat_requests[2].json["tools"]}
    assert "write_file" not in planning and "write_file" in working
    assert llm_server.chat_requests[2].messages[-1]["content"].startswith("Step 1 of 2: Write notes.txt")
    assert llm_server.chat_requests[4].messages[-1]["content"].startswith("Step 2 of 2: Summarise the notes")


def test_a_plan_not_approved_keeps_plan_mode_and_runs_nothing(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        *planning_replies(),
        text("Noted: three steps then."),
    )
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/plan")
    child.expect("mode: plan")
    send_line(child, "plan the notes")
    child.expect("Approve this plan?")
    child.send("n")
    child.expect("Keep planning")
    child.expect(PROMPT)
    send_line(child, "add a third step")
    child.expect("Noted: three steps then.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0

    assert len(llm_server.chat_requests) == 3 and llm_server.remaining == 0
    offered = {t["function"]["name"] for t in llm_server.chat_requests[2].json["tools"]}
    assert "write_file" not in offered


def test_ctrl_c_during_a_step_cancels_it_and_stops_the_plan_there(llm_server: LLMServer, tmp_path: Path) -> None:
    sleep = unique_sleep()
    llm_server.script(
        *planning_replies(),
        tool_calls(call("execute_command", {"command": sleep})),
        text("unused"),
    )
    child = spawn_repl(llm_server, tmp_path, "--yes")
    send_line(child, "/plan")
    child.expect("mode: plan")
    send_line(child, "plan the notes")
    child.expect("Approve this plan?")
    child.send("y")
    child.expect("Step 1 of 2")
    wait_for_process(sleep)
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect(r"Plan cancelled at step 1 of 2 \(Write notes.txt\); 0 of 2 steps done.")
    child.expect(PROMPT)
    assert gone_within(sleep, 5), "the cancelled step's command is still running"
    assert leave_repl(child) == 0
    assert llm_server.remaining == 1  # the second step was never asked for


def test_a_request_that_looks_like_several_steps_gets_a_hint_about_plan_mode(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("Done."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "refactor the loader")
    child.expect(r"tip: this looks like several steps \(it asks to \"refactor\"\)")
    child.expect("Done.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
