"""Paths whose change is always asked, whatever the rules say: what decides what hive and git run by themselves.

Judged on the resolved path (links followed), anywhere on disk, so a nested repository or a second
spelling is covered as well as the project's own:

- hive's configuration: any ``.ironhive`` folder, the user config dir, any ``.mcp.json`` (it lists
  servers hive starts);
- git's own files: anything inside a ``.git`` folder (config, hooks, ``info/``, the ``modules/`` and
  ``worktrees/`` of submodules), a ``.git`` file (a gitfile points git at another repository), the
  ``config`` and ``hooks/`` of a bare repository, git's global configuration and template folders;
- files the shell or ssh run by themselves: shell startup files, ``~/.ssh/``;
- a file with other hard links (writing it changes the same file under its other names).
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.paths import PROJECT_DIR_NAME, user_config_dir

HIVE = "is hive's own configuration (permissions, settings and hooks, MCP servers): changing it is always asked"
GIT = "decides what git runs by itself (configuration, hooks, where the repository is): changing it is always asked"
STARTUP = "runs by itself when a shell or ssh starts: changing it is always asked"
HARD_LINK = "has other hard links, so writing it changes the same file elsewhere: it is always asked"

_HOME_FILES = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".kshrc",
    ".inputrc",
)
_HOME_FOLDERS = (".ssh", ".config/fish", ".config/git", ".git-templates", ".git_template", ".git-template")
_STARTUP_SYSTEM = ("/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/zsh")
_GIT_SYSTEM = ("/etc/gitconfig", "/usr/share/git-core")
"""The system-wide git configuration and the folder of its templates (hooks copied into new repositories)."""


def protection(path: Path) -> str:
    """Why changing ``path`` (resolved) is always asked, or "" when nothing protects it."""
    parts = path.parts
    if PROJECT_DIR_NAME in parts or path.name == ".mcp.json" or _under(path, _resolved(user_config_dir())):
        return f"{path} {HIVE}"
    if ".git" in parts or _in_bare_repository(path) or _git_global(path):
        return f"{path} {GIT}"
    if _startup(path):
        return f"{path} {STARTUP}"
    if _hard_linked(path):
        return f"{path} {HARD_LINK}"
    return ""


def _under(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def _home() -> Path:
    return _resolved(Path("~"))


def _git_global(path: Path) -> bool:
    home = _home()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    folders = [Path(p) for p in _GIT_SYSTEM] + [home / ".gitconfig"]
    if xdg:
        folders.append(_resolved(Path(xdg) / "git"))
    return any(_under(path, folder) for folder in folders)


def _startup(path: Path) -> bool:
    home = _home()
    if path.parent == home and path.name in _HOME_FILES:
        return True
    folders = [home / name for name in _HOME_FOLDERS] + [Path(p) for p in _STARTUP_SYSTEM]
    return any(_under(path, folder) for folder in folders)


def _in_bare_repository(path: Path) -> bool:
    """Whether ``path`` is the config or a hook of a folder git would take for a repository (HEAD, objects/, refs/)."""
    for folder in path.parents:
        if looks_like_git_dir(folder):
            rest = path.relative_to(folder).parts
            return bool(rest) and rest[0] in ("config", "hooks", "info", "commondir", "config.worktree")
    return False


def looks_like_git_dir(folder: Path) -> bool:
    """Whether git would take ``folder`` itself for a repository (as it does with a bare one)."""
    try:
        return (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir()
    except OSError:
        return False


def _hard_linked(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_nlink > 1
    except OSError:
        return False


def _resolved(path: Path) -> Path:
    try:
        return path.expanduser().resolve(strict=False)
    except (OSError, RuntimeError):
        return path
