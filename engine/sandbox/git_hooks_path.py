"""Where git runs a repository's hooks from when ``core.hooksPath`` moves them, and what its config includes.

No git is run: the repository's own configuration files are read by :mod:`engine.git_repository`
(includes inside the repository followed), then the user's global ones (``~/.gitconfig``,
``$XDG_CONFIG_HOME/git/config``), the repository's winning. A relative value is taken from the top of
the working tree, as git does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engine.git_config import parse_git_config
from engine.git_repository import (
    Repository,
    common_dir,
    global_hooks_path,
    hooks_folder,
    repository_config,
)


class HooksPaths:
    """Where each repository's hooks run from, for one environment (the global configs are read once)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self._global: tuple[str | None] | None = None

    def of(self, git_dir: Path, work_tree: Path) -> Path | None:
        """The folder ``core.hooksPath`` names for the repository in ``git_dir``, or None when it is not set."""
        values = repository_config(_repository(git_dir, work_tree), self.env).values("core", "hookspath")
        value = values[-1] if values else self._global_value()
        return hooks_folder(value or "", work_tree, self.env)

    def included(self, git_dir: Path, work_tree: Path) -> tuple[Path, ...]:
        """Every file the repository's configuration includes (``include.path``, ``includeIf.*.path``)."""
        return repository_config(_repository(git_dir, work_tree), self.env).included

    def _global_value(self) -> str | None:
        if self._global is None:
            self._global = (global_hooks_path(self.env),)
        return self._global[0]


def core_hooks_path(text: str) -> str | None:
    """The last ``hooksPath`` of the ``[core]`` section in the git config ``text``, or None."""
    values = [
        entry.value
        for entry in parse_git_config(text).entries
        if entry.section == "core" and entry.subsection is None and entry.name == "hookspath"
    ]
    return values[-1] if values else None


def _repository(git_dir: Path, work_tree: Path) -> Repository:
    return Repository(work_tree=work_tree, git_dir=git_dir, common_dir=common_dir(git_dir))
