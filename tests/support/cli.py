"""Run the real ``hive`` program in a subprocess, with the test network block and the test's HIVE_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

NETBLOCK_DIR = Path(__file__).parent / "sitecustomize_netblock"


def hive_env(**extra: str) -> dict[str, str]:
    """The current environment (with the test's HIVE_HOME) plus the network block for the child."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(NETBLOCK_DIR), env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


def run_hive(
    *args: str, cwd: Path | None = None, timeout: float = 90, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m hive_cli ARGS`` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "hive_cli", *args],
        cwd=cwd,
        env=hive_env(**env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def json_lines(text: str) -> list[dict[str, Any]]:
    """Parse JSONL output (every non-empty line must be a JSON object)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]
