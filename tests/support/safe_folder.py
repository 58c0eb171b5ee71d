"""A folder hive would run programs from: outside the sticky, world-writable /tmp where pytest's tmp_path lies.

Every component from ``/`` down must belong to root or the user and be writable by nobody else, so
the folder is made inside the checkout's ``.pytest_cache`` (ignored by git) and removed afterwards.
Where even that fails the rule (a checkout in a shared folder), the tests that need it are skipped.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from engine.programs import placement_problem

CACHE = Path(__file__).resolve().parents[2] / ".pytest_cache"


@contextmanager
def safe_folder() -> Iterator[Path]:
    """A fresh folder that passes :func:`engine.programs.placement_problem`; removed on the way out."""
    make_folder(CACHE)
    folder = Path(tempfile.mkdtemp(prefix="hive-safe-", dir=CACHE))
    try:
        problem = placement_problem(folder, unsafe_dirs=())
        if problem is not None:
            pytest.skip(f"no folder here is safe to run programs from: {problem}")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def make_folder(folder: Path, mode: int = 0o755) -> Path:
    """``folder`` and its missing parents, each with ``mode`` whatever the umask."""
    for missing in reversed([path for path in (folder, *folder.parents) if not path.exists()]):
        missing.mkdir()
        missing.chmod(mode)
    return folder


def program(folder: Path, name: str, body: str = "exit 0") -> Path:
    """An executable shell script ``folder/name`` (folders made as needed, writable by their owner only)."""
    path = make_folder(folder) / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path
