"""STAND-IN, on the raybatch branch only: the batch helper's ``hive_cli/batch/worker.py`` replaces this file at merge.

It keeps the shared interface (``run_one``) so that the Ray backend (``ray_pool``) and its test can run before
``hive batch`` exists. It does the least a task needs: a clone of the task's repository in ``workspace`` (never
the source checkout), ``hive run --output-format json`` there, and the result line. No setup command, no patch,
no branch: those are the batch helper's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

_RUN_TIMEOUT_S = 600


def run_one(task_json: str, defaults_json: str, workspace: str) -> str:
    """Run one task in ``workspace`` and return its result line as JSON text; a failure is a result, never raised."""
    task: dict[str, Any] = json.loads(task_json)
    defaults: dict[str, Any] = json.loads(defaults_json)
    try:
        copy = _clone(str(task["repo"]), Path(workspace) / "copy")
        done = subprocess.run(
            [sys.executable, "-m", "hive_cli", "run", str(task["prompt"]), "-o", "json", "-C", str(copy)]
            + _default_flags(defaults),
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT_S,
            check=False,
        )
        return json.dumps(_result(str(task["id"]), done))
    except (OSError, subprocess.SubprocessError, KeyError) as error:
        return json.dumps({"id": task.get("id"), "status": "failed", "error": f"{type(error).__name__}: {error}"})


def _clone(repo: str, copy: Path) -> Path:
    copy.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", repo, str(copy)], check=True, capture_output=True)
    return copy


def _default_flags(defaults: dict[str, Any]) -> list[str]:
    flags = [f"--{name.replace('_', '-')}={defaults[name]}" for name in ("model", "api_base") if defaults.get(name)]
    return flags + (["--yes"] if defaults.get("yes") else [])


def _result(task_id: str, done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    try:
        run: dict[str, Any] = json.loads(done.stdout)
    except ValueError:
        last = done.stderr.strip().splitlines()[-1:] or [f"hive run exited with {done.returncode}"]
        return {"id": task_id, "status": "failed", "error": last[0]}
    return {
        "id": task_id,
        "status": "succeeded" if done.returncode == 0 else "failed",
        "exit_reason": run.get("exit_reason"),
        "answer": run.get("text"),
        "usage": run.get("usage", {}).get("total"),
        "cost_usd": run.get("cost_usd"),
        "session_id": run.get("session_id"),
    }
