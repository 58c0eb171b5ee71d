"""The local pool: up to N tasks at a time, each ``run_one`` in a thread of this process.

A thread, not a process, per worker: ``run_one`` spends its time waiting on the subprocesses it starts
(git, the setup command, ``hive run``), so threads hold no lock anyone waits on and start in microseconds,
where a process pool would start and import a Python per worker. New tasks start only while the batch's
budget allows; each result is handed on the moment its task ends.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from hive_cli.batch.budget import Budget
from hive_cli.batch.options import BatchDefaults, task_json
from hive_cli.batch.results import BatchResult, encode_result
from hive_cli.batch.tasks import BatchTask
from hive_cli.batch.worker import run_one

PROGRESS_EVERY_S = 5.0


def default_workers() -> int:
    """One task per CPU this process may use (at least one)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_pool(
    tasks: list[BatchTask],
    defaults: BatchDefaults,
    root: Path,
    workers: int,
    budget: Budget,
    on_result: Callable[[str], None],
    on_start: Callable[[str], None] | None = None,
    on_tick: Callable[[], None] | None = None,
) -> list[str]:
    """Run ``tasks`` on ``workers`` threads; return the ids never started because the budget was reached."""
    waiting = deque(tasks)
    running: dict[Future[str], str] = {}
    defaults_json = defaults.to_json()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hive-batch") as pool:
        try:
            while waiting or running:
                while waiting and len(running) < workers and not budget.reached():
                    task = waiting.popleft()
                    running[pool.submit(run_one, task_json(task), defaults_json, str(root / task.id))] = task.id
                    if on_start is not None:
                        on_start(task.id)
                if not running:
                    break
                finished, _ = wait(running, timeout=PROGRESS_EVERY_S, return_when=FIRST_COMPLETED)
                for future in finished:
                    on_result(_line(future, running.pop(future)))
                if not finished and on_tick is not None:
                    on_tick()
        except BaseException:
            for future in running:
                future.cancel()
            raise
    return [task.id for task in waiting]


def _line(future: Future[str], task_id: str) -> str:
    """The task's result line; a crash of ``run_one`` itself (a bug) is a failed result too."""
    error = future.exception()
    if error is None:
        return future.result()
    return encode_result(
        BatchResult(id=task_id, status="failed", error=f"internal error: {type(error).__name__}: {error}")
    )
