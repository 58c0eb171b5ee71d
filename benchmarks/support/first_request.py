"""`hive run` measured from outside: when its first model request arrives, and the CPU the run used.

The scripted model server runs in this process (threads), so its work stays off the measured process;
the run's CPU is what ``wait4`` reports for hive, which includes the children it reaped (its MCP servers).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from msgspec import Struct

from tests.support.llm_server import LLMServer, Reply, text

HIVE = Path(sys.executable).parent / "hive"


class RunCost(Struct, frozen=True):
    """One ``hive run``: seconds from launch to the model server receiving its first request, and CPU seconds."""

    first_request_s: float
    cpu_s: float


class ArrivalServer(LLMServer):
    """Answers every request with a short text and notes when each request arrived."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        super().__init__()

    def _next_reply(self, body: dict[str, Any]) -> Reply | None:
        self.arrivals.append(time.perf_counter())
        return text("Nothing to do.")


def run_costs(projects: dict[str, Path], env: dict[str, str], rounds: int) -> dict[str, list[RunCost]]:
    """``rounds`` runs of each project in turn (after one warm-up run each), against one scripted model server."""
    costs: dict[str, list[RunCost]] = {label: [] for label in projects}
    with ArrivalServer() as server:
        for folder in projects.values():
            one_run(server, folder, env)  # warms the file cache (and fills hive's caches, as any earlier run would)
        for _ in range(rounds):
            for label, folder in projects.items():
                costs[label].append(one_run(server, folder, env))
    return costs


def one_run(server: ArrivalServer, folder: Path, env: dict[str, str]) -> RunCost:
    command = [
        str(HIVE),
        "run",
        "say hello",
        "-m",
        "openai/test-model",
        "--api-base",
        server.base_url,
        "-C",
        str(folder),
    ]
    server.arrivals.clear()
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: Popen must not wait again
    if process.returncode != 0 or not server.arrivals:
        raise RuntimeError(f"hive run failed ({process.returncode}): {errors.decode(errors='replace')[-500:]}")
    return RunCost(first_request_s=server.arrivals[0] - started, cpu_s=usage.ru_utime + usage.ru_stime)
