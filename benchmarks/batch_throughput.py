"""`hive batch` throughput: tasks per minute with 1, 2 and 4 local workers, and the cost of the batch per task.

Eight tasks over two small git repositories, each one ``write_file`` and an answer from a scripted model
server in its own process. The baseline is a plain ``hive run`` of the same task in a plain checkout (median
of a few). Printed: each pool's wall time and tasks per minute, its speed-up over one worker, and the
overhead per task of the batch with one worker over the plain run (the working copy, the commit and patch,
the results line): goal at most +1 s a task (+50%). On two cores, four workers cannot beat two by much.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support import model_server
from tests.support.batch import make_repo

TASKS = 8
PLAIN_ROUNDS = 4
WORKERS = (1, 2, 4)
PROMPT = "Write out.txt."
MODEL = "openai/test-model"


def hive_env(home: Path) -> dict[str, str]:
    return {**os.environ, "HIVE_HOME": str(home), "HIVE_LOCAL_SERVERS": "", "HIVE_API_KEY": "sk-bench"}


def plain_run(base_url: str, folder: Path, env: dict[str, str]) -> float:
    """One ``hive run`` of the task in ``folder``: wall seconds."""
    argv = [sys.executable, "-m", "hive_cli", "run", PROMPT, "-o", "json", "--yes", "--model", MODEL]
    started = time.perf_counter()
    subprocess.run([*argv, "--api-base", base_url, "-C", str(folder)], env=env, capture_output=True, check=True)
    return time.perf_counter() - started


def batch_run(base_url: str, root: Path, workers: int, env: dict[str, str]) -> float:
    """A batch of :data:`TASKS` tasks on ``workers`` workers: wall seconds (every task must succeed)."""
    tasks = root / f"w{workers}.jsonl"
    lines = [{"id": f"t{n}", "repo": f"repo{n % 2}", "prompt": PROMPT} for n in range(TASKS)]
    tasks.write_text("".join(json.dumps(line) + "\n" for line in lines))
    argv = [sys.executable, "-m", "hive_cli", "batch", str(tasks), "--workers", str(workers), "--yes"]
    started = time.perf_counter()
    done = subprocess.run([*argv, "--model", MODEL, "--api-base", base_url], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"batch with {workers} workers failed ({done.returncode}): {done.stdout[-800:]}")
    return wall


def main() -> None:
    process, base_url = model_server.start("write_file", 1, '{"path": "out.txt", "content": "x\\n"}')
    try:
        with tempfile.TemporaryDirectory(prefix="hive-batch-bench-") as scratch:
            root = Path(scratch)
            env = hive_env(root / "home")
            for n in range(2):
                make_repo(root / f"repo{n}", {"README.md": f"repo {n}\n"})
            plain = statistics.median(
                plain_run(base_url, make_repo(root / f"plain{n}", {"README.md": "p\n"}), env)
                for n in range(PLAIN_ROUNDS)
            )
            walls = {workers: batch_run(base_url, root, workers, env) for workers in WORKERS}
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
    report(plain, walls)


def report(plain: float, walls: dict[int, float]) -> None:
    print(
        f"hive batch: {TASKS} tasks (one write_file and an answer each), scripted model server, {os.cpu_count()} CPUs"
    )
    print(f"  plain hive run of the task: {plain:.2f} s (median of {PLAIN_ROUNDS})")
    for workers, wall in walls.items():
        rate = TASKS / wall * 60
        print(
            f"  {workers} worker{'s' if workers > 1 else ' '}: {wall:6.2f} s, {rate:5.1f} tasks/min, "
            f"{walls[1] / wall:.2f}x one worker's throughput"
        )
    per_task = walls[1] / TASKS
    overhead = per_task - plain
    print(
        f"  overhead per task (1 worker) over a plain hive run: {overhead:+.2f} s ({per_task / plain:.2f}x); "
        f"goal at most +1 s and 1.5x"
    )


if __name__ == "__main__":
    main()
