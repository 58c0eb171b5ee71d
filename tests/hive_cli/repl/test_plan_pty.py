"""Plan mode in the REPL: the agent's checklist approved, then executed step by step with items ticked off."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.terminal import PROMPT, leave_repl, send_line, spawn_repl

TODOS = [
    {"content": "Write notes.txt", "status": "pending"},
    {"content": "Summarise the notes", "status": "pending"},
]


def test_a_plan_approved_in_plan_mode_is_executed_in_work_mode_ticking_items_off(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(
        tool_calls(call("todo_write", {"todos": TODOS})),
        text("Here is the plan."),
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
        tool_calls(call("todo_write", {"todos": TODOS})),
        text("Here is the plan."),
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
