"""`hive batch` end to end: the real hive in subprocesses, real git repositories, the scripted model server."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.batch import PRICED_MODEL, TaskModel, git, make_repo, priced_env, task_prompt, write_tasks
from tests.support.cli import NETBLOCK_DIR, hive_env, run_hive
from tests.support.llm_server import LLMServer

SECRET = "sk-batch-very-secret-4242"
HEAVY = {"litellm", "mcp", "ray", "rich"}


def eight_tasks(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """Two local repositories and one reached by a file:// URL; seven tasks that write, one the model refuses."""
    repos = {name: make_repo(tmp_path / name, {"README.md": f"{name}\n"}) for name in ("alpha", "beta", "gamma")}
    where = ["alpha", "beta", "alpha", "beta", "gamma", "gamma", "alpha", "beta"]
    ids = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "fail-1"]
    tasks: list[dict[str, Any]] = []
    for task_id, name in zip(ids, where, strict=True):
        repo = repos[name].as_uri() if name == "gamma" else name
        tasks.append({"id": task_id, "repo": repo, "prompt": task_prompt(task_id)})
    return write_tasks(tmp_path / "jobs.jsonl", tasks), repos


def batch(tasks: Path, server: LLMServer, *args: str) -> subprocess.CompletedProcess[str]:
    return run_hive("batch", str(tasks), "--yes", "--model", PRICED_MODEL, *args, **priced_env(server, SECRET))


def results_of(path: Path) -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len({line["id"] for line in lines}) == len(lines), "a task has two result lines"
    return {line["id"]: line for line in lines}


def test_each_task_works_in_its_own_copy_and_reports_its_result(llm_server: LLMServer, tmp_path: Path) -> None:
    tasks, repos = eight_tasks(tmp_path)
    heads = {name: git(repo, "rev-parse", "HEAD") for name, repo in repos.items()}
    model = TaskModel().serve(llm_server)

    done = batch(tasks, llm_server, "--workers", "2")

    assert done.returncode == 1, done.stderr  # one task failed: the others ran to the end all the same
    results = results_of(tmp_path / "jobs.results.jsonl")
    assert sorted(results) == sorted(["t1", "t2", "t3", "t4", "t5", "t6", "t7", "fail-1"])
    failed = results.pop("fail-1")
    assert failed["status"] == "failed" and failed["exit_code"] == 1 and "refused" in failed["error"]
    assert model.seen["fail-1"] == 1
    costs = set()
    for task_id, result in results.items():
        assert result["status"] == "succeeded" and result["exit_reason"] == "completed", result
        assert result["answer"] == f"Task {task_id} done." and result["session_id"]
        assert result["usage"]["total_tokens"] == 22_000 and result["usage"]["calls"] == 2
        assert result["cost_usd"] > 0 and result["cost_usd"] == result["usage"]["cost_usd"]
        costs.add(result["cost_usd"])
        copy = Path(result["workspace"]) / "copy"
        assert result["changed_files"] == [f"{task_id}.txt"]
        assert sorted(p.name for p in copy.glob("*.txt")) == [f"{task_id}.txt"]  # its own writes only
        assert f"+written by {task_id}" in Path(result["patch"]).read_text()
        assert git(copy, "log", "-1", "--format=%s", result["branch"]).strip() == f"hive batch: task {task_id}"
        assert model.seen[task_id] == 2
    assert len(costs) == 1  # the same work costs the same
    for name, repo in repos.items():  # the sources: same commit, clean tree, no task's file
        assert git(repo, "rev-parse", "HEAD") == heads[name]
        assert git(repo, "status", "--porcelain") == "" and not list(repo.glob("t*.txt"))
    assert "hive-batch/jobs/t1" in git(repos["alpha"], "branch", "--list", "hive-batch/*")  # a worktree's branch
    for task_id in results:
        assert task_id in done.stdout
    assert "8 tasks: 7 succeeded, 1 failed" in done.stdout
    assert "hive batch: 8/8 done · 0 running · 1 failed · 0 left" in done.stderr
    assert SECRET not in (tmp_path / "jobs.results.jsonl").read_text()
    for written in (tmp_path / "jobs.work").rglob("hive-run.*"):
        assert SECRET not in written.read_text()


def test_the_budget_stops_new_tasks_and_counts_what_earlier_runs_spent(llm_server: LLMServer, tmp_path: Path) -> None:
    tasks, _ = eight_tasks(tmp_path)
    model = TaskModel().serve(llm_server)
    results_file = tmp_path / "jobs.results.jsonl"

    first = batch(tasks, llm_server, "--workers", "1", "--budget-usd", "0.000001")
    assert first.returncode == 3, first.stderr
    assert list(results_of(results_file)) == ["t1"]  # reached after the first task: nothing more started
    assert "7 not started (the budget of $0.0000 was reached)" in first.stdout
    one = results_of(results_file)["t1"]["cost_usd"]

    second = batch(tasks, llm_server, "--workers", "1", "--budget-usd", str(one * 2.5))
    assert second.returncode == 3, second.stderr
    assert list(results_of(results_file)) == ["t1", "t2", "t3"]  # 2 x cost < budget <= 3 x cost
    assert model.seen["t1"] == 2 and "t4" not in model.seen


def test_a_bad_line_is_exit_2_naming_it_and_nothing_starts(tmp_path: Path) -> None:
    tasks = tmp_path / "jobs.jsonl"
    tasks.write_text('{"id": "a", "repo": "r", "prompt": "p"}\n\n{"id": "b", "repo": "r"\n')
    done = run_hive("batch", str(tasks))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"hive: {tasks}, line 3: not JSON (Expecting ',' delimiter at column 24)"
    ]
    assert not (tmp_path / "jobs.results.jsonl").exists() and not (tmp_path / "jobs.work").exists()


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"id": "../up", "repo": "r", "prompt": "p"}', "the id '../up' is not letters, digits, _ and -"),
        ('{"repo": "r", "prompt": "p", "ref": "--upload-pack=x"}', "the ref '--upload-pack=x' is not a branch"),
        ('{"repo": "r", "prompt": "p", "colour": 1}', "Object contains unknown field `colour`"),
        ('{"repo": "r", "prompt": ""}', "Expected `str` of length >= 1 - at `$.prompt`"),
    ],
)
def test_ids_refs_and_fields_are_checked(tmp_path: Path, line: str, said: str) -> None:
    tasks = tmp_path / "jobs.jsonl"
    tasks.write_text(line + "\n")
    done = run_hive("batch", str(tasks))
    assert done.returncode == 2 and f"{tasks}, line 1: {said}" in done.stderr, done.stderr


def test_batch_help_loads_no_heavy_module() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hive_cli", "batch", "--help"],
        env=hive_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "--budget-usd" in done.stdout
    names = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in done.stderr.splitlines()}
    assert not names & HEAVY


def test_a_results_file_another_batch_holds_is_exit_2(tmp_path: Path) -> None:
    make_repo(tmp_path / "repo", {"README.md": "r\n"})
    tasks = write_tasks(tmp_path / "jobs.jsonl", [{"repo": "repo", "prompt": "p"}])
    results = tmp_path / "jobs.results.jsonl"
    with results.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a running batch holds it
        done = run_hive("batch", str(tasks))
    assert done.returncode == 2
    assert done.stderr == f"hive: {results}: another hive batch is writing these results; wait for it to end\n"
    assert not (tmp_path / "jobs.work").exists()


def test_ray_without_the_extra_is_exit_2_saying_what_to_install(tmp_path: Path) -> None:
    make_repo(tmp_path / "repo", {"README.md": "r\n"})
    tasks = write_tasks(tmp_path / "jobs.jsonl", [{"repo": "repo", "prompt": "p"}])
    missing = tmp_path / "no-ray"
    missing.mkdir()
    (missing / "ray.py").write_text("raise ImportError('Ray is not installed here (hidden by the test)')\n")
    done = run_hive("batch", str(tasks), "--ray", PYTHONPATH=os.pathsep.join((str(missing), str(NETBLOCK_DIR))))
    assert done.returncode == 2
    assert done.stderr == "hive: --ray needs Ray, which is not installed: pip install 'hive-agent[ray]'\n"
    assert not (tmp_path / "jobs.results.jsonl").exists()
