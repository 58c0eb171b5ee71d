"""`hive batch` killed mid-way and started again: no task runs twice once its line is written, none is lost."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.support.batch import PRICED_MODEL, TaskModel, make_repo, priced_env, task_prompt, write_tasks
from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer

IDS = [f"t{n}" for n in range(1, 9)]


def complete_lines(path: Path) -> list[str]:
    """The ids of the results file's complete lines."""
    if not path.exists():
        return []
    return [json.loads(line)["id"] for line in path.read_text().splitlines(keepends=True) if line.endswith("\n")]


DONE = re.compile(r"hive batch: [1-9][0-9]*/[0-9]+ done")
"""A progress line (stderr, no terminal) once a task is done."""


def batch_argv(tasks: Path) -> list[str]:
    return [sys.executable, "-m", "hive_cli", "batch", str(tasks), "--yes", "--workers", "1", "--model", PRICED_MODEL]


def wait_for_a_result(batch: subprocess.Popen[str]) -> None:
    """Read the batch's progress lines until one counts a task done: its result line was written before it."""
    assert batch.stderr is not None
    for line in batch.stderr:
        if DONE.search(line):
            return
    raise AssertionError("the batch ended before a task was done")


def test_a_killed_batch_started_again_runs_each_unfinished_task_once(llm_server: LLMServer, tmp_path: Path) -> None:
    make_repo(tmp_path / "repo", {"README.md": "r\n"})
    tasks = write_tasks(tmp_path / "jobs.jsonl", [{"id": i, "repo": "repo", "prompt": task_prompt(i)} for i in IDS])
    results = tmp_path / "jobs.results.jsonl"
    model = TaskModel().serve(llm_server)

    env = hive_env(**priced_env(llm_server, "sk-test"))
    first = subprocess.Popen(batch_argv(tasks), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_a_result(first)
    os.kill(first.pid, signal.SIGKILL)
    first.communicate()
    written = complete_lines(results)  # what the killed batch had written by the time it died
    assert 1 <= len(written) < len(IDS)
    before = dict(model.seen)
    with results.open("a") as cut_short:  # a last line a crash cut short: not a result, its task runs again
        cut_short.write('{"id": "t8", "status": "succ')

    second = subprocess.run(batch_argv(tasks), env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stdout

    assert sorted(complete_lines(results)) == sorted(IDS)  # every task, once
    assert [json.loads(line)["id"] for line in results.read_text().splitlines()] == [
        *written,
        *sorted(set(IDS) - set(written)),
    ]
    for task_id in written:  # finished before the kill: not one more request
        assert model.seen[task_id] == before[task_id] == 2
    for task_id in set(IDS) - set(written):  # the rest ran in full in the second batch
        assert model.seen[task_id] - before.get(task_id, 0) == 2
