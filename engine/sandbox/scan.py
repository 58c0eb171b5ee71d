"""A bounded walk of a project that finds what the sandbox must protect or hide, cached between commands.

The walk looks for ``.git`` folders and files (of the project and of nested repositories),
``.ironhive`` folders, and the secret files and folders of :mod:`engine.secret_files` (``.env*``,
``*.pem``, ``secrets/``...). It skips heavy folders
(``node_modules``, ``.venv``...), does not follow symbolic links to folders, and stops after
:data:`MAX_ENTRIES` entries or :data:`MAX_DEPTH` levels (the result says so). The next scan of the
same root stats every folder seen and lists again only those whose modification time changed, so a
repeated scan costs one ``stat`` per folder.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Literal

from msgspec import Struct, field

from engine.paths import SKIPPED_DIRS
from engine.secret_files import is_secret_file, is_secret_folder

MAX_DEPTH = 12
MAX_ENTRIES = 20_000
# Folder timestamps have a coarse granularity: a folder changed this recently could change again
# without its timestamp moving, so it is listed again next time rather than trusted.
_RACY_NS = 2_000_000_000

FindingKind = Literal["git_dir", "git_file", "git_link", "ironhive", "secret_file", "secret_dir"]


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
    mtime_ns: int
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

    def __init__(self, root: Path, *, max_entries: int = MAX_ENTRIES, max_depth: int = MAX_DEPTH) -> None:
        self.root = root
        self.max_entries = max_entries
        self.max_depth = max_depth
        self._last: _Folder | None = None
        self._lock = threading.Lock()

    def scan(self) -> ScanResult:
        """Walk the root (again), within the bounds."""
        with self._lock:
            budget = _Budget(self.max_entries)
            now = time.time_ns()
            self._last = self._visit(str(self.root), 0, self._last, budget, now)
            findings: list[tuple[FindingKind, Path]] = []
            if self._last is not None:
                _collect(self._last, findings)
            return ScanResult(
                self.root,
                tuple(findings),
                budget.truncated,
                self.max_entries - max(budget.left, 0),
                self._stopped(budget),
            )

    def _stopped(self, budget: _Budget) -> str:
        if not budget.truncated:
            return ""
        if budget.too_deep and budget.left > 0:
            return f"at {self.max_depth} levels deep"
        return f"at {self.max_entries:,} entries"

    def _visit(self, path: str, depth: int, old: _Folder | None, budget: _Budget, now: int) -> _Folder | None:
        # Strings, not Paths: this runs for every folder on every command.
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if old is not None and old.trusted and (old.mtime_ns, old.inode) == (st.st_mtime_ns, st.st_ino):
            folder = _Folder(st.st_mtime_ns, st.st_ino, True, old.entries, old.findings, old.subfolders)
            budget.take(old.entries)
        else:
            folder = _list(path, st, budget, now)
        if depth >= self.max_depth:
            if folder.subfolders:
                budget.truncated = budget.too_deep = True
            return folder
        previous = old.children if old is not None else {}
        for name in folder.subfolders:
            if budget.left <= 0:
                budget.truncated = True
                break
            child = self._visit(f"{path}/{name}", depth + 1, previous.get(name), budget, now)
            if child is not None:
                folder.children[name] = child
        return folder


def _list(path: str, st: os.stat_result, budget: _Budget, now: int) -> _Folder:
    findings: list[tuple[FindingKind, Path]] = []
    subfolders: list[str] = []
    complete = True
    entries = 0
    try:
        with os.scandir(path) as listing:
            for entry in listing:
                entries += 1
                if not budget.take(1):
                    complete = False
                    break
                _classify(entry, findings, subfolders)
    except OSError:
        complete = False
    trusted = complete and now - st.st_mtime_ns > _RACY_NS
    return _Folder(st.st_mtime_ns, st.st_ino, trusted, entries, findings, sorted(subfolders))


def _classify(entry: os.DirEntry[str], findings: list[tuple[FindingKind, Path]], subfolders: list[str]) -> None:
    name = entry.name
    try:
        is_link = entry.is_symlink()
        is_dir = entry.is_dir(follow_symlinks=False)
    except OSError:
        return
    kind = _kind(name, entry.path, is_link, is_dir)
    if kind is not None:
        findings.append((kind, Path(entry.path)))
    # .ironhive is read-only but may still hold a secret to hide; other findings are not walked into.
    if (kind is None or kind == "ironhive") and is_dir and not is_link and name not in SKIPPED_DIRS:
        subfolders.append(name)


def _kind(name: str, path: str, is_link: bool, is_dir: bool) -> FindingKind | None:
    if name == ".git":
        return "git_link" if is_link else "git_dir" if is_dir else "git_file"
    if name == ".ironhive":
        return "ironhive"
    if is_dir:
        return "secret_dir" if is_secret_folder(path) else None
    if is_secret_file(path):
        # a link may lead to a folder: the profile hides whichever it finds at the end
        return "secret_dir" if is_link and os.path.isdir(path) else "secret_file"
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
