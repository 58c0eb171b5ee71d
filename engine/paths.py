"""Where hive keeps things: the user config and data roots, and the project's ``.ironhive`` folder."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR_NAME = ".ironhive"


def user_config_dir() -> Path:
    """The user's hive config folder: ``$HIVE_HOME/config`` when set, else the platform's."""
    home = os.environ.get("HIVE_HOME")
    if home:
        return Path(home).expanduser() / "config"
    import platformdirs

    return Path(platformdirs.user_config_dir("hive", appauthor=False))


def user_data_dir() -> Path:
    """The user's hive data folder (sessions, saved outputs): ``$HIVE_HOME/data`` when set, else the platform's."""
    home = os.environ.get("HIVE_HOME")
    if home:
        return Path(home).expanduser() / "data"
    import platformdirs

    return Path(platformdirs.user_data_dir("hive", appauthor=False))


def project_dir(cwd: Path) -> Path:
    """The project's ``.ironhive`` folder for ``cwd`` (it may not exist)."""
    return project_root(cwd) / PROJECT_DIR_NAME


def project_root(cwd: Path) -> Path:
    """The nearest folder at or above ``cwd`` holding ``.ironhive`` or ``.git``; ``cwd`` when there is none."""
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / PROJECT_DIR_NAME).is_dir() or (folder / ".git").exists():
            return folder
    return cwd


def repository_root(cwd: Path) -> Path | None:
    """The nearest folder at or above ``cwd`` holding ``.git``, if any."""
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None
