"""The working directory a command acts in (``-C DIR`` or the current one). Kept light: every command uses it."""

from __future__ import annotations

from pathlib import Path

from engine.errors import UserError


def resolve_cwd(cwd: Path | None) -> Path:
    """``-C`` if given (it must be a directory), else the current directory; resolved."""
    path = (cwd or Path.cwd()).expanduser()
    if not path.is_dir():
        raise UserError(f"--cwd: {path} is not a directory")
    return path.resolve()
