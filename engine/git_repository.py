"""Which repository git would use in a folder, and what that repository's own configuration files say.

No git is run. :func:`find_repository` walks up from a folder to the first one holding ``.git`` (a
folder, or a gitfile naming one), and follows ``commondir`` as git does for a linked worktree.
:func:`repository_config` reads the repository's ``config`` and ``config.worktree`` with
:func:`engine.git_config.read_config_file` and follows their ``include.path`` and ``includeIf.*.path``
entries in place, whatever the condition (a superset of what git reads), to :data:`MAX_INCLUDE_DEPTH`
levels and :data:`MAX_FILES` files. Only included files inside the repository (its work tree or git
folders) are read; one outside is named in ``problems``, never opened: the repository chose it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct

from engine.git_config import ConfigEntry, read_config_file
from engine.safe_read import read_bounded

MAX_INCLUDE_DEPTH = 5
MAX_FILES = 20
_GITFILE_BYTES = 4096


class Repository(Struct, frozen=True):
    """Where a repository's parts are: its work tree, its git folder, and the folder with its ``config``."""

    work_tree: Path
    git_dir: Path
    common_dir: Path

    def inside(self, path: Path) -> bool:
        """Whether ``path`` (resolved) lies in the work tree or a git folder of this repository."""
        return any(
            path == root or path.is_relative_to(root) for root in (self.work_tree, self.git_dir, self.common_dir)
        )


class SourcedEntry(Struct, frozen=True):
    """A configuration entry and the file it came from."""

    entry: ConfigEntry
    file: Path


class RepositoryConfig(Struct, frozen=True):
    """What a repository's own configuration files hold, includes followed (see the module docstring)."""

    entries: tuple[SourcedEntry, ...] = ()
    included: tuple[Path, ...] = ()
    """Every file an include names (resolved; those outside the repository too, and missing ones)."""
    problems: tuple[str, ...] = ()
    """What hive could not read: a refused or unparsable file, an include outside or too deep."""

    def values(self, section: str, name: str) -> list[str]:
        """The values of ``section.name`` (no subsection), in the order git reads them."""
        return [
            item.entry.value
            for item in self.entries
            if item.entry.section == section and item.entry.subsection is None and item.entry.name == name
            if item.entry.value is not None
        ]


def find_repository(start: Path) -> Repository | None:
    """The repository git would use when run in ``start`` (resolved), or None outside any."""
    for folder in (start, *start.parents):
        marker = folder / ".git"
        try:
            if marker.is_dir():
                git_dir = Path(os.path.realpath(marker))
            elif marker.is_file():
                named = _gitfile_target(marker)
                if named is None:
                    return None
                git_dir = named
            else:
                continue
        except OSError:
            continue
        return Repository(work_tree=folder, git_dir=git_dir, common_dir=common_dir(git_dir))
    return None


def _gitfile_target(marker: Path) -> Path | None:
    """The git folder a gitfile (``gitdir: PATH``) names, relative to the gitfile's folder."""
    text = _small_text(marker)
    if text is None or not text.startswith("gitdir:"):
        return None
    named = text.removeprefix("gitdir:").strip()
    return Path(os.path.realpath(marker.parent / named)) if named else None


def common_dir(git_dir: Path) -> Path:
    """Where a linked worktree's shared parts are (its ``commondir`` file), else ``git_dir`` itself."""
    text = _small_text(git_dir / "commondir")
    if not text:
        return git_dir
    return Path(os.path.realpath(git_dir / text.strip()))


def _small_text(path: Path) -> str | None:
    try:
        return read_bounded(path, limit=_GITFILE_BYTES).decode("utf-8", "surrogateescape")
    except OSError:
        return None


def repository_config(repository: Repository, env: Mapping[str, str] | None = None) -> RepositoryConfig:
    """The repository's ``config`` and ``config.worktree``, includes followed; ``env`` gives ``HOME`` for ``~/``."""
    reader = _IncludeReader(repository, os.environ if env is None else env)
    reader.read(repository.common_dir / "config", depth=0)
    if repository.git_dir != repository.common_dir:
        reader.read(repository.git_dir / "config.worktree", depth=0)
    return RepositoryConfig(tuple(reader.entries), tuple(dict.fromkeys(reader.included)), tuple(reader.problems))


class _IncludeReader:
    def __init__(self, repository: Repository, env: Mapping[str, str]) -> None:
        self.repository = repository
        self.home = env.get("HOME", "")
        self.entries: list[SourcedEntry] = []
        self.included: list[Path] = []
        self.problems: list[str] = []
        self.files = 0

    def read(self, path: Path, *, depth: int) -> None:
        self.files += 1
        read = read_config_file(path)
        if read.problem:
            self.problems.append(read.problem)
        for entry in read.entries:
            self.entries.append(SourcedEntry(entry, path))
            if _is_include(entry) and entry.value:
                self._include(path, entry, depth + 1)

    def _include(self, including: Path, entry: ConfigEntry, depth: int) -> None:
        value = entry.value or ""
        target = self._target(including, value)
        if target is None:
            self.problems.append(f"{including} includes {value!r}, which hive cannot locate")
            return
        self.included.append(target)
        if not self.repository.inside(target):
            self.problems.append(f"{including} includes {target}, outside the repository")
        elif depth > MAX_INCLUDE_DEPTH or self.files >= MAX_FILES:
            self.problems.append(f"{including} includes {target}, past the {MAX_INCLUDE_DEPTH} levels hive follows")
        else:
            self.read(target, depth=depth)

    def _target(self, including: Path, value: str) -> Path | None:
        """The file an include names: ``~/`` from the home, a relative path from the including file's folder."""
        if value.startswith("%(prefix)/"):
            return None
        if value.startswith("~"):
            if not self.home or not (value == "~" or value.startswith("~/")):
                return None  # no home, or another user's (~bob/...)
            named = Path(self.home) / value[2:]
        else:
            named = including.parent / value
        return Path(os.path.realpath(named))


def global_config_files(env: Mapping[str, str]) -> tuple[Path, ...]:
    """The user's global configuration files, in the order git reads them (``GIT_CONFIG_GLOBAL`` replaces them)."""
    if env.get("GIT_CONFIG_GLOBAL"):
        return (Path(env["GIT_CONFIG_GLOBAL"]),)
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    found = [Path(xdg, "git", "config")] if xdg else []
    if home:
        found.append(Path(home, ".gitconfig"))
    return tuple(found)


def global_hooks_path(env: Mapping[str, str]) -> str | None:
    """The last ``core.hooksPath`` of the user's global configuration files (their includes not followed)."""
    values = [
        entry.value
        for path in global_config_files(env)
        for entry in read_config_file(path).entries
        if entry.section == "core" and entry.subsection is None and entry.name == "hookspath"
    ]
    return values[-1] if values else None


def hooks_folder(value: str, work_tree: Path, env: Mapping[str, str]) -> Path | None:
    """The folder a ``core.hooksPath`` value names: ``~/`` from the home, a relative one from the work tree."""
    if not value:
        return None
    home = env.get("HOME")
    if value.startswith("~/") and home:
        return Path(home) / value[2:]
    path = Path(value)
    return path if path.is_absolute() else work_tree / path


def steering_paths(repository: Repository, env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """What steers the repository's git from outside its git folder, resolved: every folder ``core.hooksPath``
    names (each value its configuration gives, else the user's global one) and every file its configuration
    includes."""
    env = os.environ if env is None else env
    config = repository_config(repository, env)
    values = config.values("core", "hookspath") or [value for value in (global_hooks_path(env),) if value]
    folders = [hooks_folder(value, repository.work_tree, env) for value in values]
    return (*(Path(os.path.realpath(folder)) for folder in folders if folder is not None), *config.included)


def _is_include(entry: ConfigEntry) -> bool:
    if entry.name != "path":
        return False
    return (entry.section == "include" and entry.subsection is None) or (
        entry.section == "includeif" and entry.subsection is not None
    )
