"""`hive batch`: what a TASKS line may set (ref, setup, output schema, a cost limit) and the per-task time limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.batch import PRICED_MODEL, TaskModel, git, make_repo, priced_env, task_prompt, write_tasks
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer

SCHEMA = {"type": "object", "required": ["task"], "properties": {"task": {"type": "string"}}}


def run_batch(tasks: Path, server: LLMServer, *args: str) -> dict[str, dict[str, Any]]:
    done = run_hive("batch", str(tasks), "--yes", "--model", PRICED_MODEL, *args, **priced_env(server, "sk-t"))
    assert done.returncode == 1, done.stderr  # each file below holds a task that fails
    results = [json.loads(line) for line in tasks.with_name(f"{tasks.stem}.results.jsonl").read_text().splitlines()]
    return {result["id"]: result for result in results}


def test_a_tasks_ref_setup_schema_and_cost_limit_reach_its_run(llm_server: LLMServer, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"OLD.md": "old\n"})
    git(repo, "branch", "older")
    (repo / "NEW.md").write_text("new\n")
    git(repo, "add", "NEW.md")
    git(repo, "commit", "--quiet", "-m", "newer")
    lines = [
        {"id": "json-1", "repo": "repo", "ref": "older", "prompt": task_prompt("json-1"), "output_schema": SCHEMA,
         "setup": "test ! -e NEW.md && echo prepared > setup-ran.txt"},
        {"id": "set-fails", "repo": "repo", "prompt": task_prompt("set-fails"), "setup": "echo broken >&2; exit 3"},
        {"id": "costly", "repo": "repo", "prompt": task_prompt("costly"), "max_cost_usd": 0.000001},
    ]  # fmt: skip
    model = TaskModel().serve(llm_server)

    results = run_batch(write_tasks(tmp_path / "jobs.jsonl", lines), llm_server, "--workers", "2")

    shaped = results["json-1"]
    assert shaped["status"] == "succeeded" and shaped["structured"] == {"task": "json-1"}, shaped
    copy = Path(shaped["workspace"]) / "copy"
    assert (copy / "setup-ran.txt").read_text() == "prepared\n" and not (copy / "NEW.md").exists()  # at the ref
    assert shaped["changed_files"] == ["json-1.txt"]  # the patch holds the agent's changes; setup's are committed
    assert git(copy, "log", "--format=%s", "-2").splitlines() == [
        "hive batch: task json-1",
        "hive batch: setup of task json-1",
    ]
    broken = results["set-fails"]
    assert broken["status"] == "failed" and broken["error"] == "setup exited with status 3: broken"
    assert model.seen["set-fails"] == 0  # hive never started
    limited = results["costly"]
    assert (limited["status"], limited["exit_code"], limited["exit_reason"]) == ("failed", 3, "usage_limit")
    assert model.seen["costly"] == 1
    assert not (repo / "setup-ran.txt").exists() and git(repo, "status", "--porcelain") == ""


def test_a_task_past_its_time_limit_is_stopped_and_failed(llm_server: LLMServer, tmp_path: Path) -> None:
    make_repo(tmp_path / "repo", {"README.md": "r\n"})
    tasks = write_tasks(tmp_path / "jobs.jsonl", [{"id": "hang-1", "repo": "repo", "prompt": task_prompt("hang-1")}])
    TaskModel().serve(llm_server)

    results = run_batch(tasks, llm_server, "--task-timeout", "2")

    assert results["hang-1"]["status"] == "failed" and results["hang-1"]["exit_code"] == 124
    assert results["hang-1"]["error"] == "hive run did not finish in 2 s and was stopped"
