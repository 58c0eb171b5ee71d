"""Where hive keeps things: the user config and data roots, and the project's ``.ironhive`` folder."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from engine.errors import UserError

PROJECT_DIR_NAME = ".ironhive"
SCRATCH_DIR_NAME = ".hive"
"""The project's scratch folder: files hive keeps for the model (full command outputs); never committed."""
SKIPPED_DIRS = frozenset(
    {
        "node_modules",
        ".venv",
        "venv",
        "target",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".gradle",
        ".next",
        ".terraform",
        ".cache",
    }
)
"""Heavy folders that project walks skip (the sandbox's scan, the checkpoints' tree of the project)."""


def user_config_dir() -> Path:
    """The user's hive config folder: ``$HIVE_HOME/config`` when set, else the platform's."""
    home = os.environ.get("HIVE_HOME")
    if home:
        return Path(home).expanduser() / "config"
    import platformdirs

    return Path(platformdirs.user_config_dir("hive", appauthor=False))


def user_cache_dir() -> Path:
    """The user's hive cache folder (what can be rebuilt): ``$HIVE_HOME/cache`` when set, else the platform's."""
    home = os.environ.get("HIVE_HOME")
    if home:
        return Path(home).expanduser() / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir("hive", appauthor=False))


def user_data_dir() -> Path:
    """The user's hive data folder (sessions, saved outputs): ``$HIVE_HOME/data`` when set, else the platform's."""
    home = os.environ.get("HIVE_HOME")
    if home:
        return Path(home).expanduser() / "data"
    import platformdirs

    return Path(platformdirs.user_data_dir("hive", appauthor=False))


def unusable_user_dir(folder: Path, error: OSError) -> UserError:
    """The configuration error for a user folder that cannot be created or written, naming the setting behind it."""
    reason = error.strerror or str(error)
    home = os.environ.get("HIVE_HOME")
    where = f"HIVE_HOME={home} points there" if home else "it is the platform's default; HIVE_HOME can point elsewhere"
    return UserError(
        f"{folder} cannot be created or written ({reason}): {where}; set HIVE_HOME to a folder you can write"
    )


def scratch_dir(cwd: Path) -> Path:
    """The project's scratch folder ``.hive/`` at the project root of ``cwd`` (it may not exist)."""
    return project_root(cwd) / SCRATCH_DIR_NAME


def ensure_scratch_dir(folder: Path) -> Path:
    """Create ``folder`` (if needed, 0700) holding a ``.gitignore`` of ``*``, so nothing in it is ever committed.

    The folder appears with its ``.gitignore`` already inside (built under a temporary name, then renamed).
    What it holds (command output) is the person's: the folder is 0700, the ``.gitignore`` 0600.
    """
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        building = folder.with_name(f"{folder.name}.tmp-{secrets.token_hex(4)}")
        building.mkdir(mode=0o700)
        _write_ignore_file(building / ".gitignore")
        try:
            building.rename(folder)
        except OSError:  # someone else made it first
            (building / ".gitignore").unlink()
            building.rmdir()
    ignore = folder / ".gitignore"
    if not ignore.is_file():
        partial = folder / f".gitignore.tmp-{secrets.token_hex(4)}"
        _write_ignore_file(partial)
        os.replace(partial, ignore)
    return folder


def _write_ignore_file(path: Path) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as ignore:
        ignore.write("*\n")


def project_dir(cwd: Path) -> Path:
    """The project's ``.ironhive`` folder for ``cwd`` (it may not exist)."""
    return project_root(cwd) / PROJECT_DIR_NAME


def project_root(cwd: Path) -> Path:
    """The nearest folder at or above ``cwd`` holding ``.git``; ``cwd`` itself when there is none.

    An ``.ironhive`` folder never makes a root: one planted below the root (``src/.ironhive``, by a
    command or a commit) must not become a project's configuration when hive is started there.
    """
    return repository_root(cwd) or cwd.resolve()


def repository_root(cwd: Path) -> Path | None:
    """The nearest folder at or above ``cwd`` holding ``.git``, if any."""
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None
