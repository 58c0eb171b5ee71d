"""One task, start to end: ``run_one`` is what a local worker thread or a Ray task calls.

It makes the task's working copy, runs its setup command, runs ``hive run -o json`` in the copy as a
subprocess (this Python's ``-m hive_cli``: the hive installed beside the interpreter running the worker),
commits what the task changed on its branch, writes the patch, and returns the result line. A task's
failure is a result with status ``failed`` and a one-line error, never an exception.

Credentials come from the calling process's environment (``HIVE_API_KEY`` and the providers' own
variables) and reach ``hive run`` in its environment only: never its command line, the results or the copy.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from msgspec.structs import replace

from hive_cli.batch.copies import CopyError, branch_name, collect_changes, commit_setup, make_copy
from hive_cli.batch.hive_process import RUN_ERRORS, HiveRun, run_hive_task
from hive_cli.batch.options import BatchDefaults, task_from_json
from hive_cli.batch.results import BatchResult, encode_result
from hive_cli.batch.setup_command import SetupError, run_setup
from hive_cli.batch.tasks import BatchTask

COPY = "copy"
PATCH = "changes.patch"


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
    return encode_result(replace(result, duration_s=round(time.monotonic() - started, 3)))


def _run(task: BatchTask, defaults: BatchDefaults, folder: Path) -> BatchResult:
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / COPY
    if task.is_url and copy.exists():
        shutil.rmtree(copy)  # an earlier, unfinished attempt's clone
    branch = branch_name(defaults.batch, task.id)
    start = make_copy(task, copy, branch)
    if task.setup is not None:
        run_setup(task.setup, copy, defaults.sandbox or "workspace-write")
        start = commit_setup(copy, start, task.id)
    run = run_hive_task(task, defaults, folder, copy)
    changes = collect_changes(copy, start, task.id, folder / PATCH)
    total = run.report.get("usage", {}).get("total") if isinstance(run.report.get("usage"), dict) else None
    usage = total if isinstance(total, dict) else None
    return BatchResult(
        id=task.id,
        status="succeeded" if run.status == 0 else "failed",
        exit_code=run.status,
        exit_reason=run.report.get("exit_reason"),
        usage=usage,
        cost_usd=None if usage is None else usage.get("cost_usd"),
        session_id=run.report.get("session_id"),
        branch=branch,
        patch=None if changes.patch is None else str(changes.patch),
        changed_files=changes.files,
        answer=run.report.get("text"),
        structured=run.report.get("structured"),
        error=None if run.status == 0 else _failure(run, defaults, folder),
        workspace=str(folder),
    )


def _failure(run: HiveRun, defaults: BatchDefaults, folder: Path) -> str:
    """One line on why hive did not finish the task: its own error, else the last line it printed on stderr."""
    if run.timed_out:
        return f"hive run did not finish in {defaults.task_timeout_s:g} s and was stopped"
    said = run.report.get("error")
    if not said:
        lines = (folder / RUN_ERRORS).read_text(encoding="utf-8", errors="replace").strip().splitlines()
        said = lines[-1] if lines else "no message"
    return _one_line(f"hive run exited with status {run.status}: {said}")


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500]
