"""What running a batch on Ray costs over running its tasks directly: import, cluster start, attach, per task.

A real local Ray head (tests/support/ray_cluster.py, two CPUs) and the scripted model server; each task is the
real `hive run` writing one file in a clone of a small git repository (tests/support/batch_tasks.py). The
baseline is the same task through ``run_one`` in this process, one after another; then the same tasks through
``run_on_ray`` with one worker (the per-task overhead) and with two (the throughput). Goal: Ray's fixed cost is
seconds per batch and its per-task cost small beside a task's own run.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hive_cli.batch.ray_pool import run_on_ray
from hive_cli.batch.worker import run_one
from tests.support.batch_tasks import ScriptedTask, TaskRouter, make_batch
from tests.support.llm_server import LLMServer
from tests.support.ray_cluster import ray_head

TASKS = 4


def import_seconds(module: str, runs: int = 3) -> float:
    """The median wall time of ``python -c 'import MODULE'`` minus that of an empty interpreter."""

    def median(code: str) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    return median(f"import {module}") - median("pass")


def direct(tasks: list[ScriptedTask], defaults: str, root: Path) -> float:
    start = time.perf_counter()
    for task in tasks:
        result = json.loads(run_one(json.dumps(task.line()), defaults, str(root / task.id)))
        assert result["status"] == "succeeded", result
    return time.perf_counter() - start


def on_ray(address: str, tasks: list[ScriptedTask], defaults: str, root: Path, workers: int) -> float:
    results: list[str] = []
    start = time.perf_counter()
    run_on_ray(
        address,
        [(t.id, json.dumps(t.line())) for t in tasks],
        defaults,
        str(root),
        ["HIVE_API_KEY"],
        results.append,
        workers,
    )
    elapsed = time.perf_counter() - start
    assert [json.loads(r)["status"] for r in results] == ["succeeded"] * len(tasks), results
    return elapsed


def main() -> None:
    print(f"import ray: {import_seconds('ray'):.2f} s over an empty interpreter")
    with tempfile.TemporaryDirectory(prefix="hive-bench-ray-") as folder, LLMServer() as server:
        root = Path(folder)
        tasks = make_batch(root, count=TASKS * 4 + 1, repos=2)
        TaskRouter(tasks).script(server)
        defaults = json.dumps({"model": "openai/test-model", "api_base": server.base_url, "yes": True})
        started = time.perf_counter()
        with ray_head(num_cpus=2, worker_env={"HIVE_HOME": str(root / "hive_home"), "HIVE_LOCAL_SERVERS": ""}) as head:
            print(f"ray start --head (2 CPUs, no dashboard): {time.perf_counter() - started:.1f} s")
            os.environ.update({**head.driver_env(), "HIVE_API_KEY": "sk-bench"})
            os.environ.update({"HIVE_HOME": str(root / "hive_home"), "HIVE_LOCAL_SERVERS": ""})
            direct(tasks[-1:], defaults, root / "warm-up")  # the first hive run fills the OS's and Python's caches
            baseline = direct(tasks[:TASKS], defaults, root / "direct") / TASKS
            attach = on_ray(head.address, [], defaults, root / "empty", 1)
            one = on_ray(head.address, tasks[TASKS : 2 * TASKS], defaults, root / "w1", 1)
            two = on_ray(head.address, tasks[2 * TASKS : 4 * TASKS], defaults, root / "w2", 2)
    per_task = (one - attach) / TASKS
    print(f"attach to the cluster and disconnect (an empty batch): {attach:.2f} s")
    print(f"one task, run_one directly: {baseline:.2f} s (baseline)")
    print(
        f"one task on Ray, one worker: {per_task:.2f} s = {per_task / baseline:.2f}x the baseline "
        f"(+{per_task - baseline:.2f} s per task, the job's first worker start included)"
    )
    throughput, sequential = 2 * TASKS / two * 60, 60 / baseline
    print(
        f"throughput on Ray, two workers (attach included): {throughput:.1f} tasks/min = "
        f"{throughput / sequential:.2f}x run_one directly one at a time ({sequential:.1f} tasks/min)"
    )


if __name__ == "__main__":
    main()
