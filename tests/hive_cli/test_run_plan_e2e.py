"""`hive run --plan`: the model plans the task into steps, then hive runs them one by one."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, Usage, call, text, tool_calls


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "-C", str(workdir)]


def test_a_planned_run_executes_every_step_and_exits_zero(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        text("1. Write notes.txt\n2. Report what it says"),
        tool_calls(call("write_file", {"path": "notes.txt", "content": "notes\n"})),
        text("Wrote notes.txt."),
        text("It says notes."),
    )
    done = run_hive("run", "make notes", "--plan", "--yes", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Wrote notes.txt.\nIt says notes.\n"
    assert "hive: plan:\n  1. Write notes.txt\n  2. Report what it says\n" in done.stderr
    assert "hive: step 2 of 2: Report what it says" in done.stderr
    assert done.stderr.strip().splitlines()[-2] == "hive: Plan done: 2 of 2 steps."
    assert (tmp_path / "notes.txt").read_text() == "notes\n"
    assert "tools" not in llm_server.chat_requests[0].json  # the planner's call offers no tools
    step_one = llm_server.chat_requests[1].messages
    assert step_one[-1]["content"].startswith("Step 1 of 2: Write notes.txt")
    assert step_one[-3:-1] == [
        {"role": "user", "content": "Plan this task: make notes"},
        {"role": "assistant", "content": "1. Write notes.txt\n2. Report what it says"},
    ]


def test_a_step_that_fails_twice_stops_the_plan_with_exit_status_one(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("1. Do the impossible\n2. Celebrate"), text("I cannot do that."), text("I cannot do that."))
    done = run_hive("run", "do it", "--plan", *model_args(llm_server, tmp_path))

    assert done.returncode == 1, done.stderr
    assert "hive: step 1 of 2 (once more): Do the impossible" in done.stderr
    last = done.stderr.strip().splitlines()[-2]
    assert last.startswith("hive: Plan stopped at step 1 of 2 (Do the impossible)")
    assert llm_server.remaining == 0


def test_plan_asks_for_text_output(llm_server: LLMServer, tmp_path: Path) -> None:
    done = run_hive("run", "do it", "--plan", "-o", "json", *model_args(llm_server, tmp_path))
    assert done.returncode == 2
    assert "--plan" in done.stderr and not llm_server.chat_requests


def test_the_planning_call_is_billed_and_a_total_ends_the_plan(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        text("1. Write notes.txt\n2. Report what it says", usage=Usage(prompt_tokens=3853, completion_tokens=20)),
        tool_calls(
            call("write_file", {"path": "notes.txt", "content": "notes\n"}),
            usage=Usage(prompt_tokens=40, completion_tokens=5),
        ),
        text("Wrote notes.txt.", usage=Usage(prompt_tokens=50, completion_tokens=4)),
        text("It says notes.", usage=Usage(prompt_tokens=1, completion_tokens=2)),
    )
    done = run_hive("run", "make notes", "--plan", "--yes", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert "hive: planning: tokens 3,853 in / 20 out · cost not priced" in lines
    assert lines.index("hive: planning: tokens 3,853 in / 20 out · cost not priced") < lines.index(
        "hive: step 1 of 2: Write notes.txt"
    )
    assert lines[-1].startswith("hive: total: tokens 3,944 in / 31 out · cost not priced · 1 tool call · ")
