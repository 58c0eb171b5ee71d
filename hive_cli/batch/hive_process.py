"""``hive run`` for one task, as a subprocess: its command line, its environment, its time limit.

The program is this interpreter's ``-m hive_cli``: the hive installed beside the Python that runs the worker
(on a Ray node, the hive installed there). The prompt goes on stdin and every option as ``--name=value``, so
nothing a TASKS line holds is read as an option; the API key stays in the environment.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from msgspec import Struct

from hive_cli.batch.options import BatchDefaults
from hive_cli.batch.tasks import BatchTask

SCHEMA = "output-schema.json"
RUN_OUTPUT = "hive-run.json"
RUN_ERRORS = "hive-run.stderr"
STOP_GRACE_S = 10.0
EXIT_TIMED_OUT = 124


class HiveRun(Struct, frozen=True, kw_only=True):
    """How ``hive run`` ended: its exit status, its JSON report (``{}`` when it printed none), and a timeout."""

    status: int
    report: dict[str, Any]
    timed_out: bool = False


def hive_argv(task: BatchTask, defaults: BatchDefaults, copy: Path, schema: Path | None) -> list[str]:
    """``hive run``'s command line for ``task`` (the prompt comes on stdin; no credential is on it)."""
    argv = [sys.executable, "-m", "hive_cli", "run", "-", "--output-format=json", f"--cwd={copy}"]
    options: dict[str, Any] = {
        "--model": task.model or defaults.model,
        "--api-base": defaults.api_base,
        "--mode": task.mode or defaults.mode,
        "--sandbox": defaults.sandbox,
        "--max-turns": task.max_turns or defaults.max_turns,
        "--max-cost-usd": task.max_cost_usd or defaults.max_cost_usd,
        "--output-schema": schema,
    }
    argv += [f"{flag}={value}" for flag, value in options.items() if value is not None]
    return [*argv, "--yes"] if defaults.yes else argv


def run_hive_task(task: BatchTask, defaults: BatchDefaults, folder: Path, copy: Path) -> HiveRun:
    """Run hive on ``task`` in ``copy``; its output lands in ``folder`` (``hive-run.json``, ``hive-run.stderr``)."""
    schema = None
    if task.output_schema is not None:
        schema = folder / SCHEMA
        schema.write_text(json.dumps(task.output_schema), encoding="utf-8")
    with (folder / RUN_ERRORS).open("wb") as errors:
        process = subprocess.Popen(
            hive_argv(task, defaults, copy, schema),
            cwd=copy,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=dict(os.environ),
            preexec_fn=_die_with_parent,
        )
        out, timed_out = _communicate(process, task.prompt.encode("utf-8"), defaults.task_timeout_s)
    output = out.decode("utf-8", "replace")
    (folder / RUN_OUTPUT).write_text(output, encoding="utf-8")
    status = EXIT_TIMED_OUT if timed_out else process.returncode
    return HiveRun(status=status, report=_report(output), timed_out=timed_out)


def _communicate(process: subprocess.Popen[bytes], prompt: bytes, timeout_s: float | None) -> tuple[bytes, bool]:
    """Send the prompt, read the output; past ``timeout_s`` stop hive (SIGTERM, then SIGKILL after a grace)."""
    try:
        out, _ = process.communicate(prompt, timeout=timeout_s)
        return out, False
    except subprocess.TimeoutExpired:
        process.terminate()  # hive closes its session and answers with what it has
        try:
            out, _ = process.communicate(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            out, _ = process.communicate()
        return out, True
    except BaseException:
        process.kill()
        process.wait()
        raise


def _report(output: str) -> dict[str, Any]:
    try:
        report = json.loads(output)
    except json.JSONDecodeError:
        return {}
    return report if isinstance(report, dict) else {}


def _parent_death_signal() -> Any:
    """prctl, looked up before any fork (a lookup in the forked child could wait on a lock a thread held)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl


_PRCTL = _parent_death_signal()
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before it starts (Linux): end it when the thread that started it ends, even when killed.

    A batch killed mid-way then leaves no ``hive run`` working on behind it; the tasks without a result run
    again on the next start.
    """
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)
