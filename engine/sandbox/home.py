"""The hidden home: each home folder an empty private folder inside the sandbox, with what builds need shown again.

In ``workspace-write`` and ``read-only``, ``$HOME`` and the account's own home (when they differ) are
replaced by an empty folder only the command sees (``--perms 0700 --tmpfs``): shell histories,
other projects, tool configurations and the sockets of daemons kept there are not in it. Shown again,
read-only, where they exist: the toolchains and caches of :mod:`engine.sandbox.toolchains`, the
user's ``sandbox.read_paths``, and a filtered copy of the git configuration
(:mod:`engine.sandbox.gitconfig`) as ``~/.gitconfig``. The project and the writable roots are bound
over it afterwards, so a project inside the home is there as always.

A home that *is* the project or a writable root, or contains one, cannot be hidden (the project would
go with it): it stays as it is, with only the credential stores hidden, and :attr:`HomeView.note`
says so.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct

from engine.sandbox.credentials import HOME_CREDENTIALS
from engine.sandbox.toolchains import toolchain_folders


class HomeView(Struct, frozen=True, kw_only=True):
    """What a command sees of the homes (paths as mounted: the homes' real paths, below them as seen there)."""

    hidden: tuple[Path, ...] = ()
    """The homes replaced by an empty private folder."""
    shown: tuple[Path, ...] = ()
    """Paths shown again read-only: toolchains and caches, the user's read paths (skipped if missing)."""
    secrets: tuple[Path, ...] = ()
    """Credential files inside the shown paths, hidden again."""
    git_config: Path | None = None
    """Where the filtered git configuration is shown (``~/.gitconfig``), when there is one."""
    note: str = ""
    """Why a home could not be hidden, for the person and the model; empty when every home is."""


def home_view(
    homes: tuple[Path, ...],
    roots: tuple[Path, ...],
    env: Mapping[str, str],
    read_paths: tuple[Path, ...] = (),
    *,
    git_config: bool = False,
) -> HomeView:
    """The view of ``homes`` (``$HOME`` first) for a command whose project and writable roots are ``roots`` (real).

    ``git_config``: whether a filtered git configuration will be shown as ``~/.gitconfig``.
    """
    real_homes = {home: _real(home) for home in homes if os.path.isabs(home) and os.path.isdir(home)}
    kept = [home for home, real in real_homes.items() if _exposing(real, roots)]
    hidden = {home: real for home, real in real_homes.items() if home not in kept and real != Path("/")}
    if not hidden:
        return HomeView(note=_note(kept, real_homes, roots))
    found = toolchain_folders(tuple(hidden), env)
    shown = [_as_mounted(path, hidden) for path in (*found.shown, *read_paths)]
    unsafe = _unsafe_places(tuple(hidden.values()))
    usable = tuple(dict.fromkeys(p for p in shown if p is not None and _safe_to_show(p, unsafe)))
    secrets = tuple(p for p in (_as_mounted(path, hidden) for path in found.secrets) if p is not None)
    first = next(iter(hidden.values())) if homes and homes[0] in hidden else None
    return HomeView(
        hidden=tuple(dict.fromkeys(hidden.values())),
        shown=usable,
        secrets=secrets,
        git_config=first / ".gitconfig" if git_config and first is not None else None,
        note=_note(kept, real_homes, roots),
    )


def _exposing(home: Path, roots: tuple[Path, ...]) -> bool:
    """Whether hiding ``home`` would hide one of ``roots`` (a root is the home or contains it)."""
    return any(_inside(home, root) for root in roots)


def _note(kept: list[Path], real_homes: dict[Path, Path], roots: tuple[Path, ...]) -> str:
    if not kept:
        return ""
    homes = ", ".join(str(real_homes[home]) for home in kept)
    root = next(root for root in roots if any(_exposing(real_homes[home], (root,)) for home in kept))
    return (
        f"[Sandbox: {root} is your home folder ({homes}) or contains it, so the sandbox cannot hide the home: "
        "commands see all of it except the known credential stores. Open hive in a project folder to hide the rest.]"
    )


def _as_mounted(path: Path, hidden: dict[Path, Path]) -> Path | None:
    """``path`` as the sandbox mounts it: below a hidden home's real path; None when it lies in no hidden home."""
    for home, real in hidden.items():
        for base in (home, real):
            if path != base and _inside(path, base):
                return real / path.relative_to(base)
    return path if os.path.isabs(path) and not any(_inside(path, real) for real in hidden.values()) else None


class _Unsafe(Struct, frozen=True):
    homes: tuple[str, ...]
    stores: frozenset[str]
    store_prefixes: tuple[str, ...]


@functools.lru_cache(maxsize=8)
def _unsafe_places(hidden_homes: tuple[Path, ...]) -> _Unsafe:
    stores = [os.path.join(home, name) for home in hidden_homes for name in HOME_CREDENTIALS]
    return _Unsafe(tuple(map(str, hidden_homes)), frozenset(stores), tuple(os.path.join(s, "") for s in stores))


def _safe_to_show(path: Path, unsafe: _Unsafe) -> bool:
    """False for a path that leads to a whole home, or into a credential store, once links are followed."""
    target = os.path.realpath(path)
    if any(_inside(home, target) for home in unsafe.homes):
        return False
    return target not in unsafe.stores and not target.startswith(unsafe.store_prefixes)


def _inside(path: str | Path, folder: str | Path) -> bool:
    """Whether ``path`` is ``folder`` or lies below it (strings: this runs for every shown path of every command)."""
    path, folder = str(path), str(folder)
    return path == folder or path.startswith(folder if folder.endswith("/") else folder + "/")


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))
