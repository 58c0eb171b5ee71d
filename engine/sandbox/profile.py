"""What a sandboxed command sees: an ordered list of mounts over a read-only view of the whole filesystem.

Every path is judged as it will be opened: symbolic links are resolved first, so a link inside
the project that points outside cannot make the outside writable, and a link to a secret hides
the secret itself. The steps, in the order the mounts are applied:

* ``private``: an empty writable folder of its own (``/tmp``, ``/run``);
* ``home``: each home folder, empty and private (see :mod:`engine.sandbox.home`), unless the
  project is the home or contains it;
* ``shown``: what the hidden home shows again, read-only, when it exists: toolchains, caches and
  the user's ``sandbox.read_paths``;
* ``writable``: the project and the extra writable roots (``workspace-write`` only);
* ``visible``: a path under a private folder or a hidden home shown read-only again (the project
  in ``read-only`` mode, the DNS configuration when the network is on);
* ``pin``: a ``.git`` folder bound onto itself, so it cannot be renamed away from its protected
  ``hooks`` and ``config``;
* ``read-only``: ``.ironhive``, ``.mcp.json``, each ``.git/hooks``, ``.git/config``,
  ``.git/commondir`` and every ``.git`` file inside a writable root, and hive's own install there;
  and the filtered git configuration shown as ``~/.gitconfig`` (a mount with a ``source``);
* ``guard``: a missing ``.ironhive`` or ``.git/hooks``, held as an empty read-only folder so it
  cannot be created;
* ``hide``: secrets shown empty: the project's secret files and folders (the list of
  :mod:`engine.secret_files`), credential files inside shown toolchains, the user's credential
  stores, known socket folders, hive's own config and data folders.

``watch`` lists paths that must not appear but cannot be guarded without breaking git (a
``commondir`` file would redirect git to another config): the launch removes them afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from msgspec import Struct, field

from engine.paths import PROJECT_DIR_NAME
from engine.safe_read import read_head
from engine.sandbox.base import SandboxError
from engine.sandbox.credentials import home_credentials, socket_places
from engine.sandbox.home import HomeView, home_view
from engine.sandbox.options import SandboxMode, SandboxOptions
from engine.sandbox.scan import ScanResult

MountKind = Literal["private", "home", "shown", "writable", "visible", "pin", "read-only", "guard", "hide"]
PRIVATE_DIRS = (Path("/tmp"), Path("/run"))
_DNS_CONFIG = Path("/etc/resolv.conf")
_GIT_FILE_BYTES = 4096
"""Bytes of a `.git` file read at most: its first line names the repository."""
_ORDER: tuple[MountKind, ...] = ("private", "home", "shown", "writable", "visible", "pin", "read-only", "guard", "hide")
_VIEWS: tuple[MountKind, ...] = ("private", "home", "shown", "writable", "visible")


class Mount(Struct, frozen=True):
    """One path and what the sandbox does with it (``source``: the file shown there, when it is another one)."""

    kind: MountKind
    path: Path
    directory: bool = True
    source: Path | None = None


class ProfileInputs(Struct, frozen=True, kw_only=True):
    """Everything the profile is computed from."""

    options: SandboxOptions
    cwd: Path
    project: Path
    homes: tuple[Path, ...]
    hive_dirs: tuple[Path, ...]
    scans: tuple[ScanResult, ...]
    """One scan of each writable root (of the project alone in ``read-only`` mode)."""
    private_dirs: tuple[Path, ...] = PRIVATE_DIRS
    env: Mapping[str, str] = field(default_factory=dict)
    """The command's environment (where toolchains and the runtime folder are, when variables move them)."""
    git_config: Path | None = None
    """A filtered copy of the user's git configuration, shown as ``~/.gitconfig`` in a hidden home."""
    hide_home: bool = True
    """Hide the homes (bubblewrap); False where the sandbox cannot mount (macOS): only their credential stores."""
    hive_install: tuple[Path, ...] = ()
    """hive's own files (its venv, its packages, the bundled bwrap): read-only where they lie in a writable root."""


class Profile(Struct, frozen=True, kw_only=True):
    """The mounts in the order they are applied, plus the paths to watch."""

    mode: SandboxMode
    network: bool
    cwd: Path
    project: Path
    mounts: tuple[Mount, ...]
    watch: tuple[Path, ...] = ()
    truncated: bool = False
    """The project walk stopped at its bounds: secrets or repositories deeper down are not covered."""
    note: str = ""
    """What a person should know about this profile (the home could not be hidden), or empty."""

    def paths(self, kind: MountKind) -> tuple[Path, ...]:
        """The paths mounted one way."""
        return tuple(mount.path for mount in self.mounts if mount.kind == kind)


def build_profile(inputs: ProfileInputs) -> Profile:
    """The mounts for one command; raises :class:`SandboxError` when the project itself would be hidden."""
    options = inputs.options
    project, cwd = _real(inputs.project), _real(inputs.cwd)
    private = tuple(_real(path) for path in inputs.private_dirs)
    writable = _writable_roots(options, project)
    view = HomeView()
    if inputs.hide_home:
        roots = writable or (project,)
        view = home_view(inputs.homes, roots, inputs.env, options.read_paths, git_config=inputs.git_config is not None)
    dark = (*private, *view.hidden)
    mounts = [Mount("private", path) for path in private]
    mounts += [Mount("home", path) for path in view.hidden]
    mounts += [Mount("shown", path) for path in view.shown]
    mounts += [Mount("writable", root) for root in writable]
    shown = writable or ((project,) if _inside_any(project, dark) else ())
    mounts += [Mount("visible", path) for path in shown if path not in writable]
    if options.network and _inside_any(dns := _real(_DNS_CONFIG), private) and dns.is_file():
        mounts.append(Mount("visible", dns, directory=False))
    watch: list[Path] = []
    if writable:
        mounts += _protections(inputs, project, writable, watch)
        mounts += _hive_install(inputs.hive_install, project, writable)
    mounts += _hidden(inputs, (project, cwd))
    mounts += [Mount("hide", path, directory=os.path.isdir(path)) for path in view.secrets]
    seen = (*writable, *shown, *view.shown)
    kept = [m for m in mounts if m.kind in _VIEWS or _shown(m.path, dark, seen)]
    return Profile(
        mode=options.mode,
        network=options.network,
        cwd=cwd,
        project=project,
        mounts=_ordered([*kept, *_git_config(view, inputs.git_config)]),
        watch=tuple(dict.fromkeys(path for path in watch if _inside_any(path, writable))),
        truncated=any(scan.truncated for scan in inputs.scans),
        note=view.note,
    )


def _git_config(view: HomeView, source: Path | None) -> list[Mount]:
    if view.git_config is None or source is None:
        return []
    return [Mount("read-only", view.git_config, directory=False, source=source)]


def _writable_roots(options: SandboxOptions, project: Path) -> tuple[Path, ...]:
    if options.mode != "workspace-write":
        return ()
    roots = [project, *(_real(root) for root in options.writable_roots)]
    unique = dict.fromkeys(root for root in roots if root.is_dir())
    return tuple(sorted(unique, key=lambda root: len(root.parts)))


def _protections(inputs: ProfileInputs, project: Path, writable: tuple[Path, ...], watch: list[Path]) -> list[Mount]:
    mounts: list[Mount] = []
    for scan in inputs.scans:
        for git_dir in (*scan.paths("git_dir"), *_linked(scan, "dir")):
            if _inside_any(real := _real(git_dir), writable):
                mounts += _git_dir(real, watch, pin=True)
        for git_file in (*scan.paths("git_file"), *_linked(scan, "file")):
            mounts += _git_file(_real(git_file), watch, writable)
        for ironhive in scan.paths("ironhive"):
            mounts += _existing_read_only(ironhive)
    # A writable root may itself be a repository's git folder (a worktree's common .git, say).
    for root in writable:
        if root.name == ".git" or ((root / "HEAD").is_file() and (root / "objects").is_dir()):
            mounts += _git_dir(root, watch, pin=False)
    ironhive = project / PROJECT_DIR_NAME
    if not os.path.lexists(ironhive):
        mounts.append(Mount("guard", ironhive))
    mounts += _existing_read_only(project / ".mcp.json")
    return [m for m in mounts if _inside_any(m.path, writable)]


def _hive_install(paths: tuple[Path, ...], project: Path, writable: tuple[Path, ...]) -> list[Mount]:
    """hive's own files inside a writable root, read-only (unless one holds the whole project), each once."""
    mounts: list[Mount] = []
    for path in sorted({_real(path) for path in paths}, key=lambda path: len(path.parts)):
        if not _inside_any(project, (path,)) and not _inside_any(path, tuple(m.path for m in mounts)):
            mounts += [m for m in _existing_read_only(path) if _inside_any(m.path, writable)]
    return mounts


def _git_dir(git_dir: Path, watch: list[Path], *, pin: bool) -> list[Mount]:
    if not git_dir.is_dir():
        return []
    mounts = [Mount("pin", git_dir)] if pin else []
    hooks = _real(git_dir / "hooks")
    mounts += _existing_read_only(hooks) if hooks.exists() else [Mount("guard", hooks)]
    mounts += _existing_read_only(git_dir / "config")
    mounts += _existing_read_only(git_dir / "config.worktree")
    commondir = git_dir / "commondir"
    if os.path.lexists(commondir):
        mounts += _existing_read_only(commondir)
    else:
        watch.append(commondir)
    return mounts


def _git_file(git_file: Path, watch: list[Path], writable: tuple[Path, ...]) -> list[Mount]:
    """The file read-only, and the repository it points to protected like a ``.git`` folder."""
    mounts = [Mount("read-only", git_file, directory=False)]
    target = _gitfile_target(git_file)
    if target is not None and _inside_any(target, writable):
        mounts += _git_dir(target, watch, pin=False)
    return mounts


def _gitfile_target(git_file: Path) -> Path | None:
    try:
        head = read_head(git_file, limit=_GIT_FILE_BYTES).data  # a `.git` file names its repository in its first line
        first = head.decode("utf-8", errors="replace").splitlines()[:1]
    except OSError:  # missing, unreadable, or refused (a FIFO, a link into /proc)
        return None
    if not first or not first[0].startswith("gitdir:"):
        return None
    return _real(git_file.parent / first[0].removeprefix("gitdir:").strip())


def _linked(scan: ScanResult, kind: Literal["dir", "file"]) -> tuple[Path, ...]:
    """``.git`` symbolic links whose target is a folder (or a file)."""
    links = (_real(link) for link in scan.paths("git_link"))
    return tuple(link for link in links if (link.is_dir() if kind == "dir" else link.is_file()))


def _existing_read_only(path: Path) -> list[Mount]:
    real = _real(path)
    if real.is_dir():
        return [Mount("read-only", real)]
    if real.exists():
        return [Mount("read-only", real, directory=False)]
    return []


def _hidden(inputs: ProfileInputs, keep: tuple[Path, ...]) -> list[Mount]:
    candidates: list[Path] = []
    for scan in inputs.scans:
        candidates += [p for p in map(_real, scan.paths("secret_file")) if p.is_file()]
        candidates += [p for p in map(_real, scan.paths("secret_dir")) if p.is_dir()]
    for home in inputs.homes:
        candidates += [Path(path) for path in home_credentials(home) if os.path.lexists(path)]
    private = tuple(_real(path) for path in inputs.private_dirs)
    candidates += [place for place in socket_places(inputs.env) if not _inside_any(_real(place), private)]
    candidates += inputs.hive_dirs
    mounts = []
    for path in dict.fromkeys(_real(path) for path in candidates if os.path.lexists(path)):
        if not os.path.exists(path):
            continue
        if any(path == kept or path in kept.parents for kept in keep):
            raise SandboxError(f"the project {keep[0]} lies inside {path}, which the sandbox hides")
        mounts.append(Mount("hide", path, directory=path.is_dir()))
    return mounts


def _shown(path: Path, private: tuple[Path, ...], roots: tuple[Path, ...]) -> bool:
    """False for a path under a private folder that no root brings back: it is not there to mount over."""
    return not _inside_any(path, private) or _inside_any(path, roots)


def _ordered(mounts: list[Mount]) -> tuple[Mount, ...]:
    unique = sorted(dict.fromkeys(mounts), key=lambda m: (_ORDER.index(m.kind), len(m.path.parts)))
    # Nothing can be mounted inside an empty read-only folder, and nothing there needs it.
    covers = [m.path for m in unique if m.kind in ("hide", "guard") and m.directory]
    return tuple(m for m in unique if not any(cover in m.path.parents for cover in covers))


def _inside_any(path: Path, roots: tuple[Path, ...]) -> bool:
    text = str(path)
    return any(text == str(root) or text.startswith(os.path.join(root, "")) for root in roots)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))
