"""Undoing what a sandboxed command must not create but the sandbox cannot block (see ``Profile.watch``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path


def remove_created(paths: Iterable[Path]) -> tuple[str, ...]:
    """Remove each of ``paths`` that now exists; one line for the result about each one removed."""
    notes = []
    for path in paths:
        if not os.path.lexists(path):
            continue
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError as exc:
            notes.append(
                f"[Sandbox: the command created {path}, which would redirect git; it could not be removed: {exc}]"
            )
            continue
        notes.append(f"[Sandbox: removed {path}, which the command created: it would redirect git to another config.]")
    return tuple(notes)
