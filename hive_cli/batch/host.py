"""Run a batch: read the tasks, skip the finished ones, run the rest (local pool or Ray), write each result as
it comes, show the progress and the summary, and choose the exit status.

Exit status: 0 every task succeeded, 1 a task failed, 2 bad input (nothing started), 3 the budget was reached
before every task started, 130 interrupted (the tasks without a result line run on the next start).
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal, cast

from msgspec import Struct

from engine.own_variables import set_for_this_process
from hive_cli.batch.budget import Budget, Counts, Progress
from hive_cli.batch.options import BatchDefaults, SandboxChoice, task_json
from hive_cli.batch.results import BatchResult, ResultsFile, decode_result, finished_results
from hive_cli.batch.summary import show_summary
from hive_cli.batch.tasks import TASK_ID, BatchTask, read_tasks

EXIT_FAILED = 1
EXIT_BUDGET = 3
FORWARDED_SUFFIXES = ("_API_KEY", "_API_BASE", "_BASE_URL", "_API_VERSION")


class BatchRequest(Struct, frozen=True, kw_only=True):
    """The ``hive batch`` command line, parsed."""

    tasks: Path
    workers: int | None = None
    results: Path | None = None
    workspace: Path | None = None
    budget_usd: float | None = None
    ray_address: str | None = None
    """None: the local pool; ``""``: Ray, a private local instance; else the cluster's address (or ``auto``)."""
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    mode: str | None = None
    yes: bool = False
    sandbox: str | None = None
    max_turns: int | None = None
    max_cost_usd: float | None = None
    task_timeout_s: float | None = None


def run_batch(request: BatchRequest) -> int:
    """Run the batch ``request`` describes; its exit status."""
    tasks = read_tasks(request.tasks)
    results_path = request.results or request.tasks.with_name(f"{request.tasks.stem}.results.jsonl")
    root = (request.workspace or request.tasks.with_name(f"{request.tasks.stem}.work")).resolve()
    if request.ray_address is not None:
        importlib.import_module("hive_cli.batch.ray_pool").require_ray()  # before anything is started or written
    defaults = _defaults(request, request.tasks)
    if request.api_key is not None:
        set_for_this_process("HIVE_API_KEY", request.api_key)  # each hive run takes it from its environment
    results = ResultsFile(results_path)  # held by this batch alone until it ends
    try:
        return _run(request, tasks, finished_results(results_path), defaults, root, results)
    finally:
        results.close()


def _run(
    request: BatchRequest,
    tasks: list[BatchTask],
    finished: dict[str, BatchResult],
    defaults: BatchDefaults,
    root: Path,
    results: ResultsFile,
) -> int:
    outcomes = {task.id: finished[task.id] for task in tasks if task.id in finished}
    todo = [task for task in tasks if task.id not in finished]
    budget = Budget(request.budget_usd, sum(result.cost_usd or 0.0 for result in outcomes.values()))
    failed = sum(result.status == "failed" for result in outcomes.values())
    progress = Progress(Counts(total=len(tasks), done=len(outcomes), failed=failed), budget)
    root.mkdir(parents=True, exist_ok=True)

    def on_result(line: str) -> None:
        results.append(line)
        result = decode_result(line)
        outcomes[result.id] = result
        progress.finished_one(result.status == "failed", result.cost_usd)

    try:
        unstarted = _dispatch(request, todo, defaults, root, progress, on_result)
    finally:
        progress.end()
    show_summary(tasks, outcomes, unstarted, budget, results.path)
    if any(result.status == "failed" for result in outcomes.values()):
        return EXIT_FAILED
    return EXIT_BUDGET if unstarted else 0


def _dispatch(
    request: BatchRequest,
    todo: list[BatchTask],
    defaults: BatchDefaults,
    root: Path,
    progress: Progress,
    on_result: Callable[[str], None],
) -> list[str]:
    """Run ``todo`` where the request says; the ids the budget left unstarted."""
    if not todo:
        return []
    if request.ray_address is None:
        from hive_cli.batch.pool import default_workers, run_pool

        workers = request.workers or default_workers()
        progress.show()
        return run_pool(
            todo, defaults, root, workers, progress.budget, on_result, lambda _: progress.started_one(), progress.tick
        )
    return _on_ray(request, todo, defaults, root, progress, on_result)


def _on_ray(
    request: BatchRequest,
    todo: list[BatchTask],
    defaults: BatchDefaults,
    root: Path,
    progress: Progress,
    on_result: Callable[[str], None],
) -> list[str]:
    """Hand ``todo`` to the Ray backend (``hive_cli.batch.ray_pool``); the ids the budget left unstarted.

    Ray schedules the tasks itself: the progress line counts them done or left, none "running". Once the budget
    is reached, ``on_result`` raises the backend's ``StopStarting``: it starts no more and lets the running finish.
    """
    ray_pool = importlib.import_module("hive_cli.batch.ray_pool")
    finished: set[str] = set()

    def counted(line: str) -> None:
        on_result(line)
        finished.add(decode_result(line).id)
        if progress.budget.reached():
            raise ray_pool.StopStarting

    progress.show()
    pairs = [(task.id, task_json(task)) for task in todo]
    address = request.ray_address or None
    ray_pool.run_on_ray(address, pairs, defaults.to_json(), str(root), forwarded_names(), counted, request.workers)
    return [task.id for task in todo if task.id not in finished]


def forwarded_names() -> list[str]:
    """The environment variables a task needs on another machine: hive's own and the providers' keys and bases."""
    return sorted(name for name in os.environ if name.startswith("HIVE_") or name.endswith(FORWARDED_SUFFIXES))


def _defaults(request: BatchRequest, tasks_file: Path) -> BatchDefaults:
    return BatchDefaults(
        batch=batch_name(tasks_file),
        model=request.model,
        api_base=request.api_base,
        mode=cast("Literal['plan', 'work'] | None", request.mode),
        yes=request.yes,
        sandbox=cast("SandboxChoice | None", request.sandbox),
        max_turns=request.max_turns,
        max_cost_usd=request.max_cost_usd,
        task_timeout_s=request.task_timeout_s,
    )


def batch_name(tasks_file: Path) -> str:
    """The batch's name, from its TASKS file's: what a branch name may hold of it (``batch`` if nothing)."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", tasks_file.stem).strip("-_")[:64]
    return name if TASK_ID.fullmatch(name) else "batch"
