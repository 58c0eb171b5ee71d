"""One task, start to end: ``run_one`` is what a local worker thread or a Ray task calls.

It makes the task's working copy, runs its setup command, runs ``hive run -o json`` in the copy as a
subprocess (this Python's ``-m hive_cli``: the hive installed beside the interpreter running the worker),
commits what the task changed on its branch, writes the patch, and returns the result line. A task's
failure is a result with status ``failed`` and a one-line error, never an exception.

Credentials come from the calling process's environment (``HIVE_API_KEY`` and the providers' own
variables) and reach ``hive run`` in its environment only: never its command line, the results or the copy.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hive_cli.batch.copies import CopyError, branch_name, collect_changes, make_copy
from hive_cli.batch.options import BatchDefaults, task_from_json
from hive_cli.batch.results import BatchResult, encode_result
from hive_cli.batch.setup_command import SetupError, run_setup
from hive_cli.batch.tasks import BatchTask

COPY = "copy"
PATCH = "changes.patch"
SCHEMA = "output-schema.json"
RUN_OUTPUT = "hive-run.json"
RUN_ERRORS = "hive-run.stderr"


def run_one(task_json: str, defaults_json: str, workspace: str) -> str:
    """Run one task in ``workspace`` (its own folder) and return its result line (JSON text)."""
    started = time.monotonic()
    task = task_from_json(task_json)
    defaults = BatchDefaults.from_json(defaults_json)
    folder = Path(workspace)
    try:
        result = _run(task, defaults, folder)
    except (CopyError, SetupError, OSError) as error:
        result = BatchResult(id=task.id, status="failed", error=_one_line(str(error)), workspace=str(folder))
    return encode_result(_timed(result, time.monotonic() - started))


def _run(task: BatchTask, defaults: BatchDefaults, folder: Path) -> BatchResult:
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / COPY
    if task.is_url and copy.exists():
        shutil.rmtree(copy)  # an earlier, unfinished attempt's clone
    branch = branch_name(defaults.batch, task.id)
    start = make_copy(task, copy, branch)
    sandbox = defaults.sandbox or "workspace-write"
    if task.setup is not None:
        run_setup(task.setup, copy, sandbox)
    status, output = _hive_run(task, defaults, folder, copy)
    changes = collect_changes(copy, start, task.id, folder / PATCH)
    report = _report(output)
    usage = report.get("usage", {}).get("total") if isinstance(report.get("usage"), dict) else None
    return BatchResult(
        id=task.id,
        status="succeeded" if status == 0 else "failed",
        exit_code=status,
        exit_reason=report.get("exit_reason"),
        usage=usage,
        cost_usd=usage.get("cost_usd") if isinstance(usage, dict) else None,
        session_id=report.get("session_id"),
        branch=branch,
        patch=None if changes.patch is None else str(changes.patch),
        changed_files=changes.files,
        answer=report.get("text"),
        structured=report.get("structured"),
        error=None if status == 0 else _failure(status, report, folder),
        workspace=str(folder),
    )


def hive_argv(task: BatchTask, defaults: BatchDefaults, copy: Path, schema: Path | None) -> list[str]:
    """``hive run``'s command line for ``task`` (the prompt comes on stdin; no credential is on it)."""
    argv = [sys.executable, "-m", "hive_cli", "run", "-", "--output-format", "json", "--cwd", str(copy)]
    options: dict[str, Any] = {
        "--model": task.model or defaults.model,
        "--api-base": defaults.api_base,
        "--mode": task.mode or defaults.mode,
        "--sandbox": defaults.sandbox,
        "--max-turns": task.max_turns or defaults.max_turns,
        "--max-cost-usd": task.max_cost_usd or defaults.max_cost_usd,
        "--output-schema": schema,
    }
    for flag, value in options.items():
        if value is not None:
            argv += [flag, str(value)]
    return [*argv, "--yes"] if defaults.yes else argv


def _hive_run(task: BatchTask, defaults: BatchDefaults, folder: Path, copy: Path) -> tuple[int, str]:
    """Run hive on the task; its exit status and its JSON output."""
    schema = None
    if task.output_schema is not None:
        schema = folder / SCHEMA
        schema.write_text(json.dumps(task.output_schema), encoding="utf-8")
    with (folder / RUN_ERRORS).open("wb") as errors:
        done = subprocess.run(
            hive_argv(task, defaults, copy, schema),
            cwd=copy,
            input=task.prompt.encode("utf-8"),
            stdout=subprocess.PIPE,
            stderr=errors,
            env=dict(os.environ),
            check=False,
            preexec_fn=_die_with_parent,
        )
    output = done.stdout.decode("utf-8", "replace")
    (folder / RUN_OUTPUT).write_text(output, encoding="utf-8")
    return done.returncode, output


def _report(output: str) -> dict[str, Any]:
    try:
        report = json.loads(output)
    except json.JSONDecodeError:
        return {}
    return report if isinstance(report, dict) else {}


def _failure(status: int, report: dict[str, Any], folder: Path) -> str:
    """One line on why hive did not finish the task: its own error, else the last line it printed on stderr."""
    said = report.get("error")
    if not said:
        lines = (folder / RUN_ERRORS).read_text(encoding="utf-8", errors="replace").strip().splitlines()
        said = lines[-1] if lines else "no message"
    return _one_line(f"hive run exited with status {status}: {said}")


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500]


def _timed(result: BatchResult, seconds: float) -> BatchResult:
    from msgspec.structs import replace

    return replace(result, duration_s=round(seconds, 3))


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
