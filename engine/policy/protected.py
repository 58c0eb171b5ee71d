"""Paths whose change is always asked of a person, whatever the rules say: what decides what runs by itself.

Judged on the resolved path (links followed), anywhere on disk, so a nested repository or a second
spelling is covered as well as the project's own:

- hive's configuration: any ``.ironhive`` folder, the user config dir, any ``.mcp.json`` (it lists
  servers hive starts);
- git's own files: anything inside a ``.git`` folder (config, hooks, ``info/``, the ``modules/`` and
  ``worktrees/`` of submodules), a ``.git`` file (a gitfile points git at another repository), the
  ``config`` and ``hooks/`` of a bare repository, git's global configuration and template folders,
  and what a repository's configuration points git at outside its ``.git`` folder: the folder
  ``core.hooksPath`` names (``.husky/``) and every file ``include.path`` or ``includeIf.*.path`` names
  (read by :mod:`engine.git_repository`, without running git);
- what instructs coding agents (hive's next session reads some of it, other agents the rest):
  ``AGENTS.md``, ``AGENTS.override.md``, ``CLAUDE.md``, ``CLAUDE.local.md``, ``GEMINI.md``,
  ``.cursorrules``, ``.windsurfrules`` at any depth, ``.github/copilot-instructions.md`` and
  ``.github/instructions/``, and anything in a ``.agents``, ``.claude``, ``.gemini``, ``.codex``,
  ``.cursor`` or ``.windsurf`` folder (skills, commands, agent settings, their MCP servers);
- what an editor or a shell runs by itself in a folder: anything in a ``.vscode`` or ``.idea`` folder
  (tasks that run when the folder opens, run configurations), ``.envrc`` (direnv) at any depth;
- files the shell or ssh run by themselves: shell startup files, ``~/.ssh/``;
- a file with other hard links (writing it changes the same file under its other names).

:func:`command_protection` judges a path inside a writable folder by the same names, for the check
after each sandboxed command (:mod:`engine.sandbox.planted`): there only git's control files count,
not the objects and refs every git command rewrites.

The names of hive's, git's and the agents' files are compared case-folded: on a case-insensitive
filesystem ``.IronHive/settings.yaml`` is ``.ironhive/settings.yaml``. Such an ask is *person-only*
(see :mod:`engine.policy.permissions`): ``--yes`` and "always" answers never approve it.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePath

from engine.git_repository import find_repository, global_hooks_path, steering_paths
from engine.paths import PROJECT_DIR_NAME, user_config_dir

_ASKED = "changing it is always asked of a person"
HIVE_WHY = "is hive's own configuration (permissions, settings and hooks, MCP servers)"
GIT_WHY = "decides what git runs by itself (configuration, hooks, where the repository is)"
AGENTS_WHY = "instructs the agents that work here (hive's next session, or another agent, reads it)"
EDITOR_WHY = "runs by itself when an editor opens the folder or a shell enters it (tasks, run configurations, direnv)"
HIVE = f"{HIVE_WHY}: {_ASKED}"
GIT = f"{GIT_WHY}: {_ASKED}"
AGENTS = f"{AGENTS_WHY}: {_ASKED}"
EDITOR = f"{EDITOR_WHY}: {_ASKED}"
STARTUP = "runs by itself when a shell or ssh starts: changing it is always asked of a person"
HARD_LINK = "has other hard links, so writing it changes the same file elsewhere: it is always asked of a person"

_HIVE_NAMES = frozenset({PROJECT_DIR_NAME, ".mcp.json"})
"""Folder or file names of hive's configuration, case-folded."""
_AGENT_FILES = frozenset(
    {"agents.md", "agents.override.md", "claude.md", "claude.local.md", "gemini.md", ".cursorrules", ".windsurfrules"}
)
"""Names (case-folded) of files agents read as instructions, wherever they are."""
_AGENT_FOLDERS = frozenset({".agents", ".claude", ".gemini", ".codex", ".cursor", ".windsurf"})
"""Names (case-folded) of folders of agents' instructions, skills, commands and settings."""
_COPILOT = frozenset({"copilot-instructions.md", "instructions"})
"""What instructs GitHub Copilot right inside a ``.github`` folder (a file, and a folder of them)."""
_EDITOR_FOLDERS = frozenset({".vscode", ".idea"})
"""Names (case-folded) of folders whose tasks and run configurations an editor runs when it opens the folder."""
_EDITOR_FILES = frozenset({".envrc"})
"""Names (case-folded) of files a shell runs when it enters their folder (direnv)."""
GIT_CONTROL = ("config", "hooks", "info", "commondir", "config.worktree")
"""What, inside a git folder, decides what git runs or where the repository is (the rest is the repository's data)."""

_NAMED = _HIVE_NAMES | _AGENT_FILES | _AGENT_FOLDERS | _EDITOR_FOLDERS | _EDITOR_FILES

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
    parts = tuple(part.casefold() for part in path.parts)
    if _HIVE_NAMES.intersection(parts) or _under(path, _resolved(user_config_dir())):
        return f"{path} {HIVE}"
    if ".git" in parts or _in_bare_repository(path) or _git_global(path) or _steers_git(path):
        return f"{path} {GIT}"
    if _instructs_agents(parts):
        return f"{path} {AGENTS}"
    if _run_by_editor(parts):
        return f"{path} {EDITOR}"
    if _startup(path):
        return f"{path} {STARTUP}"
    if _hard_linked(path):
        return f"{path} {HARD_LINK}"
    return ""


def command_protection(relative: PurePath) -> str:
    """Why a shell command may not change ``relative`` (a path inside a writable folder), or "" when it may.

    Judged by its names alone (nothing is read or resolved): hive's configuration, a ``.git`` folder, file
    or link itself and git's control files in it (:data:`GIT_CONTROL`), what instructs agents, what an
    editor or shell runs.
    """
    parts = tuple(part.casefold() for part in relative.parts)
    if not parts:
        return ""
    if _HIVE_NAMES.intersection(parts):
        return HIVE_WHY
    if parts[-1] == ".git" or any(p == ".git" and n in GIT_CONTROL for p, n in zip(parts, parts[1:], strict=False)):
        return GIT_WHY
    if _instructs_agents(parts):
        return AGENTS_WHY
    if _run_by_editor(parts):
        return EDITOR_WHY
    return ""


def is_protected_name(name: str, parent: str) -> bool:
    """Whether a folder entry ``name`` in a folder named ``parent`` is protected by its name alone (for walks).

    True for hive's, the agents' and the editors' files and folders; git's are found by the ``.git`` name.
    """
    folded = name.casefold()
    return folded in _NAMED or (folded in _COPILOT and parent.casefold() == ".github")


def _run_by_editor(parts: tuple[str, ...]) -> bool:
    return parts[-1] in _EDITOR_FILES or bool(_EDITOR_FOLDERS.intersection(parts))


def _instructs_agents(parts: tuple[str, ...]) -> bool:
    """Whether the case-folded ``parts`` of a path name a file agents read as instructions (or a folder of them)."""
    if parts[-1] in _AGENT_FILES or _AGENT_FOLDERS.intersection(parts):
        return True
    return any(part == ".github" and following in _COPILOT for part, following in zip(parts, parts[1:], strict=False))


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


def _steers_git(path: Path) -> bool:
    """Whether ``path`` is in a folder ``core.hooksPath`` names or is a file a repository's config includes,
    for a repository ``path`` lies in (or, for the user's global ``core.hooksPath``, any)."""
    for folder in path.parents:
        if not os.path.lexists(folder / ".git"):
            continue
        repository = find_repository(folder)
        if repository is not None and any(_under(path, steered) for steered in steering_paths(repository)):
            return True
    value = global_hooks_path(os.environ)
    if value and (value.startswith(("/", "~/"))):
        return _under(path, _resolved(Path(value)))
    return False


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
            return bool(rest) and rest[0] in GIT_CONTROL
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
