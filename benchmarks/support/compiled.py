"""Benchmarks measure hive as it runs once installed: with its modules compiled to bytecode.

pip compiles an installed package's modules; an editable checkout under PYTHONDONTWRITEBYTECODE
(set on these machines) would otherwise recompile hive's sources on every start.
"""

from __future__ import annotations

import compileall
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def compile_hive() -> None:
    """Write bytecode for engine/ and hive_cli/ (quietly; no-op when it is up to date)."""
    for package in ("engine", "hive_cli"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
