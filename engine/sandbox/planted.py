"""After every sandboxed command, what it changed among the files that steer or run later is undone, and said.

The sandbox keeps some of these read-only (``.ironhive``, ``.mcp.json``, ``.git/hooks`` and
``.git/config`` that exist), but a command can still create or change others in the writable roots:
``AGENTS.md`` and its kin at any depth (the next session's instructions), ``.agents/`` and the other
agents' folders (a skill that shadows a bundled one), ``.vscode/`` and ``.idea/`` (tasks an editor
runs), ``.envrc``, a new ``.ironhive`` deeper down, ``.git/info/`` (``exclude`` hides files from
``git status``), a new repository's hooks and config, a new ``.git`` file, the folder
``core.hooksPath`` names and every file a repository's config includes (``include.path``,
``includeIf.*.path``). Which names count is :func:`engine.policy.protected.command_protection`.

Before the command, each such path the project walk (:mod:`engine.sandbox.scan`) found is read: every
entry's stamp and a copy of small files (:mod:`engine.sandbox.tree_state`). After it, the walk runs
again (cached: one ``stat`` per unchanged folder) to find new ones, and every protected path is put
back as it was (:mod:`engine.sandbox.put_back`), never through a link. The result gets one line per
path undone. Not covered: what the walk skips (``node_modules``, ``.venv``..., past its bounds) and
what lies outside the writable roots.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath

from engine.policy.protected import GIT_CONTROL, GIT_WHY, HIVE_WHY, command_protection
from engine.sandbox.git_hooks_path import HooksPaths
from engine.sandbox.profile import Profile
from engine.sandbox.put_back import Undone, put_back
from engine.sandbox.scan import MAX_DEPTH, MAX_ENTRIES, ScanResult
from engine.sandbox.tree_state import Copies, TreeState, read_state

_RACY_NS = 1_000_000_000
"""File times are coarse: an entry changed up to this long before the command may look older than it."""
_MAX_MODULES = 200
"""Entries looked at under a git folder's ``modules/`` and ``worktrees/`` for the repositories inside."""
_LISTED = 5
"""Entries a note names before saying how many more."""
_MAX_NOTES = 20
"""Lines about paths undone in one result; past them one line counts the rest."""

_KEPT_BY_THE_SANDBOX = frozenset({"read-only", "guard", "hide"})
"""Mounts a command cannot change: what lies under them needs no check."""

Place = tuple[str, str]
"""A protected path: its writable root and its path under it ("a/b")."""
Scanning = Callable[[Path], ScanResult]


class PlantedGuard:
    """Checks the writable roots of one sandbox around each of its commands, keeping copies between commands."""

    def __init__(self) -> None:
        self._copies: dict[str, Copies] = {}
        self._told_truncated: set[str] = set()
        self._lock = threading.Lock()

    def before(self, profile: Profile, scans: Sequence[ScanResult], rescan: Scanning, env: Mapping[str, str]) -> Check:
        """Read the protected paths of the writable roots now; ``scans`` are the walks the profile was made from.

        ``rescan`` walks a root again after the command; ``env`` is where git's global config is found.
        """
        roots = tuple(str(root) for root in profile.paths("writable"))
        covered = tuple(str(mount.path) for mount in profile.mounts if mount.kind in _KEPT_BY_THE_SANDBOX)
        known = {str(scan.root): scan for scan in scans}
        context = _Context(roots, covered, str(profile.project))
        found = context.discover((known.get(root) for root in roots), HooksPaths(env))
        states = {place: read_state(*place, copies=self._copies_of(place[0])) for place in found}
        for root in roots:
            self._copies_of(root).forget_except({rel for (r, _), s in states.items() if r == root for rel in s.nodes})
        incomplete = {root for root in roots if known.get(root) is None or known[root].truncated}
        return Check(self, context, found, states, incomplete, rescan)

    def first_time_truncated(self, root: str) -> bool:
        """True the first time the walk of ``root`` is found cut short (it is said once per session)."""
        with self._lock:
            first = root not in self._told_truncated
            self._told_truncated.add(root)
            return first

    def _copies_of(self, root: str) -> Copies:
        with self._lock:
            return self._copies.setdefault(root, Copies())


class Check:
    """One command's check: what the protected paths held before it; :meth:`after` undoes its changes."""

    def __init__(
        self,
        guard: PlantedGuard,
        context: _Context,
        found: dict[Place, str],
        states: dict[Place, TreeState],
        incomplete: set[str],
        rescan: Scanning,
    ) -> None:
        self.guard = guard
        self.context = context
        self.found = found
        self.states = states
        self.incomplete = incomplete
        self.rescan = rescan
        self.since_ns = time.time_ns() - _RACY_NS

    def after(self) -> tuple[str, ...]:
        """Put every protected path back as it was; one line for the result about each one the command changed."""
        scans = [self.rescan(Path(root)) for root in self.context.roots]
        places = _topmost({**self.context.discover(scans), **self.found})
        notes = [note for scan in scans if scan.truncated and (note := self._truncated(str(scan.root)))]
        undone = [
            (place, why, done) for place, why in sorted(places.items()) if (done := self._put_back(place)).anything
        ]
        notes += [self.context.note(place, why, done) for place, why, done in undone[:_MAX_NOTES]]
        if len(undone) > _MAX_NOTES:
            notes.append(
                f"[Sandbox: undone as well: the command's changes to {len(undone) - _MAX_NOTES} more such paths.]"
            )
        return tuple(notes)

    def _put_back(self, place: Place) -> Undone:
        # A path found only now was absent before, unless the walk before was cut short and missed it.
        before = self.states[place] if place in self.states else TreeState({}, place[0] not in self.incomplete)
        return put_back(place[0], before, read_state(*place, copies=None), since_ns=self.since_ns)

    def _truncated(self, root: str) -> str:
        if not self.guard.first_time_truncated(root):
            return ""
        return (
            f"[Sandbox: {root} holds more than {MAX_ENTRIES:,} entries or "
            f"{MAX_DEPTH} levels of folders, where hive's walk stops: what a command plants past that point "
            "(an AGENTS.md, a nested repository's hooks) is not found, so it is not undone.]"
        )


class _Context:
    """The writable roots, the paths the sandbox already keeps read-only, and the project."""

    def __init__(self, roots: tuple[str, ...], covered: tuple[str, ...], project: str) -> None:
        self.roots = roots
        self.covered = covered
        self.project = project

    def discover(self, scans: Iterable[ScanResult | None], hooks: HooksPaths | None = None) -> dict[Place, str]:
        """The protected paths the walks found (topmost only), each with why it is protected.

        With ``hooks``, the folders ``core.hooksPath`` names too (before a command: it cannot change them).
        """
        found: dict[Place, str] = {}
        for scan in scans:
            if scan is None:
                continue
            for kind, path in scan.findings:
                for target, why in self._targets(kind, str(path), hooks):
                    place = self._place(target)
                    if place is not None and why:
                        found.setdefault(place, why)
        return _topmost(found)

    def _targets(self, kind: str, path: str, hooks: HooksPaths | None) -> Iterator[tuple[str, str]]:
        if kind == "git_dir":
            yield from _git_controls(path)
            if hooks is not None:
                yield from _configured(hooks, Path(path))
        elif kind in ("git_file", "git_link"):
            yield path, GIT_WHY
        elif kind == "ironhive":
            yield path, HIVE_WHY
        else:
            place = self._place(path)
            if place is not None:
                yield path, command_protection(PurePosixPath(place[1]))

    def _place(self, path: str) -> Place | None:
        """The writable root ``path`` lies in and its path under it; None outside them, or kept read-only anyway."""
        if _inside_any(path, self.covered):
            return None
        for root in sorted(self.roots, key=len, reverse=True):
            if path.startswith(root + "/"):
                return root, path[len(root) + 1 :]
        return None

    def note(self, place: Place, why: str, undone: Undone) -> str:
        """The line for the result: what the command did there, why it may not, and what could not be undone."""
        shown = self.shown(place)
        done = [
            f"{verb} {_listed([self.shown((place[0], rel)) for rel in rels])}"
            for verb, rels in (("created", undone.created), ("changed", undone.changed), ("removed", undone.deleted))
            if rels
        ]
        where = "" if (*undone.created, *undone.changed, *undone.deleted) == (place[1],) else f" in {shown}"
        text = f"the command {', '.join(done)}{where}, which {why}; a command may not change it"
        if undone.unlinked:
            links = _listed([self.shown((place[0], rel)) for rel in undone.unlinked])
            text += f" (to put it back, hive removed the link the command put in place of {links})"
        if not undone.failures:
            return f"[Sandbox: undone: {text}. It is back as it was.]"
        failures = "; ".join(self.shown((place[0], failure)) for failure in undone.failures)
        return f"[Sandbox: {text}, and hive could not put all of it back ({failures}). Tell the person.]"

    def shown(self, place: Place) -> str:
        """A path for people: under the project relative to it, elsewhere whole."""
        path = f"{place[0]}/{place[1]}"
        return path[len(self.project) + 1 :] if path.startswith(self.project + "/") else path


def _git_controls(git_dir: str) -> Iterator[tuple[str, str]]:
    """The control files of the repository in ``git_dir`` and of those under its ``modules/`` and ``worktrees/``."""
    for name in GIT_CONTROL:
        yield f"{git_dir}/{name}", GIT_WHY
    for inner in _inner_git_dirs(git_dir):
        yield from _git_controls(inner)


def _configured(hooks: HooksPaths, git_dir: Path) -> Iterator[tuple[str, str]]:
    """The folder the repository's ``core.hooksPath`` names and the files its configuration includes."""
    moved = hooks.of(git_dir, git_dir.parent)
    if moved is not None:
        yield os.path.realpath(moved), GIT_WHY
    for included in hooks.included(git_dir, git_dir.parent):
        yield str(included), GIT_WHY


def _inner_git_dirs(git_dir: str) -> list[str]:
    """Submodules' and worktrees' git folders (a folder with a ``HEAD``), bounded, without following links."""
    found: list[str] = []
    pending = [f"{git_dir}/modules", f"{git_dir}/worktrees"]
    budget = _MAX_MODULES
    while pending and budget > 0:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = [entry for entry in listing if entry.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        budget -= len(entries)
        for entry in entries:
            if os.path.isfile(f"{entry.path}/HEAD"):
                found.append(entry.path)
            else:
                pending.append(entry.path)
    return found


def _topmost(found: dict[Place, str]) -> dict[Place, str]:
    """``found`` without the paths that lie under another one (its check covers them)."""
    kept: dict[Place, str] = {}
    last: Place | None = None
    for place in sorted(found, key=lambda place: (place[0], place[1].split("/"))):
        if last is not None and place[0] == last[0] and place[1].startswith(last[1] + "/"):
            continue
        kept[place] = found[place]
        last = place
    return kept


def _inside_any(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == folder or path.startswith(folder + "/") for folder in folders)


def _listed(items: list[str]) -> str:
    if len(items) <= _LISTED:
        return ", ".join(items)
    return f"{', '.join(items[:_LISTED])} and {len(items) - _LISTED} more"
