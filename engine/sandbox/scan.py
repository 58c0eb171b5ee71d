"""A bounded walk of a project that finds what the sandbox must protect or hide, cached between commands.

The walk looks for ``.git`` folders and files (of the project and of nested repositories),
``.ironhive`` folders, the secret files and folders of :mod:`engine.secret_files` (``.env*``,
``*.pem``, ``secrets/``...), and the other files and folders a command may not change (``steering``:
what instructs agents or an editor runs, see :func:`engine.policy.protected.is_protected_name`). It
skips heavy folders (``node_modules``, ``.venv``...), does not follow symbolic links to folders, and
stops after :data:`MAX_ENTRIES` entries or :data:`MAX_DEPTH` levels (the result says so). The next
scan of the same root stats every folder seen and lists again only those whose change time moved, so
a repeated scan costs one ``stat`` per folder. The change time, not the modification time: a command
can set a folder's modification time back (``touch -d``) to hide what it added, never its change time.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Literal

from msgspec import Struct, field

from engine.paths import SKIPPED_DIRS
from engine.policy.protected import is_protected_name
from engine.secret_files import is_secret_file, is_secret_folder

MAX_DEPTH = 12
MAX_ENTRIES = 20_000
# Folder timestamps have a coarse granularity: a folder changed this recently could change again
# without its timestamp moving, so it is listed again next time rather than trusted.
RACY_NS = 2_000_000_000

FindingKind = Literal["git_dir", "git_file", "git_link", "ironhive", "secret_file", "secret_dir", "steering"]
_WALKED_INTO: frozenset[FindingKind | None] = frozenset({None, "ironhive", "steering"})
"""Findings whose contents are walked too: they may still hold a secret to hide."""


class ScanResult(Struct, frozen=True):
    """What a walk of ``root`` found, as paths under ``root`` (symbolic links not resolved)."""

    root: Path
    findings: tuple[tuple[FindingKind, Path], ...] = ()
    truncated: bool = False
    """True when the walk stopped at its bounds: something deeper may not be protected or hidden."""
    entries: int = 0
    stopped: str = ""
    """Where the walk stopped when it did (``at 20,000 entries``, ``12 levels deep``), for people."""

    def paths(self, kind: FindingKind) -> tuple[Path, ...]:
        """The paths found of one kind."""
        return tuple(path for found, path in self.findings if found == kind)


class _Folder(Struct):
    ctime_ns: int
    inode: int
    trusted: bool
    entries: int
    findings: list[tuple[FindingKind, Path]]
    subfolders: list[str]
    children: dict[str, _Folder] = field(default_factory=dict)


class _Budget(Struct):
    left: int
    truncated: bool = False
    too_deep: bool = False

    def take(self, count: int) -> bool:
        self.left -= count
        if self.left < 0:
            self.truncated = True
        return self.left >= 0


class ProjectScanner:
    """Scans one root, reusing what it saw last time for folders that did not change (thread-safe)."""

    def __init__(
        self, root: Path, *, max_entries: int = MAX_ENTRIES, max_depth: int = MAX_DEPTH, racy_ns: int = RACY_NS
    ) -> None:
        """``racy_ns``: a folder changed more recently than this is listed again next time (see :data:`RACY_NS`)."""
        self.root = root
        self.max_entries = max_entries
        self.max_depth = max_depth
        self.racy_ns = racy_ns
        self._last: _Folder | None = None
        self._latest: ScanResult | None = None
        self._lock = threading.Lock()

    def scan(self) -> ScanResult:
        """Walk the root (again), within the bounds."""
        with self._lock:
            budget = _Budget(self.max_entries)
            settled = time.time_ns() - self.racy_ns
            self._last = self._visit(str(self.root), 0, self._last, budget, settled)
            findings: list[tuple[FindingKind, Path]] = []
            if self._last is not None:
                _collect(self._last, findings)
            self._latest = ScanResult(
                self.root,
                tuple(findings),
                budget.truncated,
                self.max_entries - max(budget.left, 0),
                self._stopped(budget),
            )
            return self._latest

    def _stopped(self, budget: _Budget) -> str:
        if not budget.truncated:
            return ""
        if budget.too_deep and budget.left > 0:
            return f"at {self.max_depth} levels deep"
        return f"at {self.max_entries:,} entries"

    def latest(self) -> ScanResult:
        """The result of the last scan (a scan now when there was none)."""
        with self._lock:
            latest = self._latest
        return latest if latest is not None else self.scan()

    def _visit(self, path: str, depth: int, old: _Folder | None, budget: _Budget, settled: int) -> _Folder | None:
        # Strings, not Paths: this runs for every folder on every command.
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if old is not None and old.trusted and (old.ctime_ns, old.inode) == (st.st_ctime_ns, st.st_ino):
            folder = _Folder(st.st_ctime_ns, st.st_ino, True, old.entries, old.findings, old.subfolders)
            budget.take(old.entries)
        else:
            folder = _list(path, st, budget, settled)
        if depth >= self.max_depth:
            if folder.subfolders:
                budget.truncated = budget.too_deep = True
            return folder
        previous = old.children if old is not None else {}
        for name in folder.subfolders:
            if budget.left <= 0:
                budget.truncated = True
                break
            child = self._visit(f"{path}/{name}", depth + 1, previous.get(name), budget, settled)
            if child is not None:
                folder.children[name] = child
        return folder


def _list(path: str, st: os.stat_result, budget: _Budget, settled: int) -> _Folder:
    """The listing of ``path``; trusted next time if complete and last changed before ``settled``."""
    findings: list[tuple[FindingKind, Path]] = []
    subfolders: list[str] = []
    complete = True
    entries = 0
    parent = os.path.basename(path)
    try:
        with os.scandir(path) as listing:
            for entry in listing:
                entries += 1
                if not budget.take(1):
                    complete = False
                    break
                _classify(entry, parent, findings, subfolders)
    except OSError:
        complete = False
    trusted = complete and st.st_ctime_ns < settled
    return _Folder(st.st_ctime_ns, st.st_ino, trusted, entries, findings, sorted(subfolders))


def _classify(
    entry: os.DirEntry[str], parent: str, findings: list[tuple[FindingKind, Path]], subfolders: list[str]
) -> None:
    name = entry.name
    try:
        is_link = entry.is_symlink()
        is_dir = entry.is_dir(follow_symlinks=False)
    except OSError:
        return
    kind = _kind(name, entry.path, is_link, is_dir)
    if kind is not None:
        findings.append((kind, Path(entry.path)))
    if kind in _WALKED_INTO and is_dir and not is_link and name not in SKIPPED_DIRS:
        subfolders.append(name)


def _kind(name: str, path: str, is_link: bool, is_dir: bool) -> FindingKind | None:
    if name == ".git":
        return "git_link" if is_link else "git_dir" if is_dir else "git_file"
    if name == ".ironhive":
        return "ironhive"
    if is_dir:
        if is_secret_folder(path):
            return "secret_dir"
    elif is_secret_file(path):
        # a link may lead to a folder: the profile hides whichever it finds at the end
        return "secret_dir" if is_link and os.path.isdir(path) else "secret_file"
    if is_protected_name(name, os.path.basename(os.path.dirname(path))):
        return "steering"
    return None


def _collect(folder: _Folder, into: list[tuple[FindingKind, Path]]) -> None:
    into.extend(folder.findings)
    for child in folder.children.values():
        _collect(child, into)


_SHARED_ROOTS = 32
_shared: dict[str, ProjectScanner] = {}
_shared_lock = threading.Lock()


def shared_scanner(root: Path) -> ProjectScanner:
    """The scanner of ``root`` (its real path) for this process: every sandbox and the policy share its walk.

    The scanners of the :data:`_SHARED_ROOTS` roots used last are kept.
    """
    real = os.path.realpath(root)
    with _shared_lock:
        scanner = _shared.pop(real, None) or ProjectScanner(Path(real))
        _shared[real] = scanner  # last used last
        while len(_shared) > _SHARED_ROOTS:
            del _shared[next(iter(_shared))]
        return scanner
