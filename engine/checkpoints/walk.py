"""The stat-scan of the folders a shell command may write: a walk, or what a watch reported since the last one.

Left out of the scan, and so of undo: ``.git`` (the repository's own database), hive's scratch
folder ``.hive``, the dependency and cache folders the sandbox scan skips (``node_modules``,
``.venv``...), and hive's own files: the partial names its atomic writers use for a moment (another
hive's write in flight must never become this turn's change) and its data, config and cache folders
when they lie inside the project, and an empty ``.ironhive`` folder (the sandbox's mount point for its
guard, which another hive's command may hold past this one's end). Symbolic links to folders are
recorded as links, never followed. A walk stops after :data:`MAX_ENTRIES` entries and says so.

:class:`TreeScanner` walks the roots once, watching every folder it lists (:mod:`.watch`); each later
scan starts from the keys it had and looks only at the paths the kernel reported since, so its cost
follows the change. Each scan has a generation; :meth:`TreeScanner.named_since` gives the paths that may
differ between two scans of one watch (None: a walk lies between them, compare everything).
"""

from __future__ import annotations

import os
import re
import stat
import threading

from msgspec import Struct

from engine.checkpoints.watch import TreeWatch
from engine.paths import (
    PROJECT_DIR_NAME,
    SCRATCH_DIR_NAME,
    SKIPPED_DIRS,
    user_cache_dir,
    user_config_dir,
    user_data_dir,
)

EXCLUDED_DIRS = SKIPPED_DIRS | {".git", SCRATCH_DIR_NAME}
MAX_ENTRIES = 100_000
_LOG_GENERATIONS = 256
"""How many scans' reported paths are remembered (older scans are compared whole)."""

StatKey = tuple[int, int, int, int, int]
HIVE_PARTIAL = re.compile(r"\..+\.[0-9a-f]{8}\.tmp|\..+\.hive-(?:restore|undo)-[0-9a-f]{8,12}|.+\.tmp-[0-9a-f]{8}")
"""The temporary names hive's atomic writers give a file for a moment (``write_file``, undo, the scratch folder)."""


def is_hive_partial(name: str) -> bool:
    """Whether ``name`` is one of hive's temporary names: never part of a turn."""
    if ".tmp" not in name and ".hive-" not in name:  # every such name has one: most names are decided here
        return False
    return HIVE_PARTIAL.fullmatch(name) is not None


def hive_folders() -> frozenset[str]:
    """hive's own data, config and cache folders (real paths): never scanned, even inside a project."""
    return frozenset(os.path.realpath(folder) for folder in (user_data_dir(), user_config_dir(), user_cache_dir()))


class Scan(Struct, frozen=True):
    """The paths under the roots with their stat keys, and whether the scan stopped at its bound."""

    keys: dict[str, StatKey]
    truncated: bool = False
    racy: frozenset[str] = frozenset()
    """Files modified so recently that a change in the same clock tick would not show in their stat keys."""
    generation: int = 0
    """The scan's number in its :class:`TreeScanner` (0: none)."""


def stat_key(st: os.stat_result) -> StatKey:
    """What tells whether a path changed: type and mode, size, modification time, inode (folders: type and mode)."""
    if stat.S_ISDIR(st.st_mode):
        return (st.st_mode, 0, 0, 0, 0)
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


def changed_paths(before: Scan, after: Scan) -> list[str]:
    """The paths created, deleted or changed between two scans."""
    paths = set(before.keys) | set(after.keys)
    return sorted(path for path in paths if before.keys.get(path) != after.keys.get(path))


class TreeScanner:
    """Scans of a set of roots: a walk first, then what the kernel reported (a walk again when it cannot tell)."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._watch: TreeWatch | None = None
        self._roots: tuple[str, ...] = ()
        self._keys: dict[str, StatKey] = {}
        self._inodes: dict[str, int] = {}
        """Each folder's inode: a folder replaced by another of the same name is walked anew."""
        self._generation = 0
        self._walked = 0
        """The generation of the last walk: paths named since an older scan are not known."""
        self._named: dict[int, frozenset[str]] = {}

    def scan(self, roots: tuple[str, ...], skip: frozenset[str] = frozenset()) -> Scan:
        """The roots' paths with their stat keys (the roots themselves included), folders named in ``skip`` left out."""
        if skip:
            return walk_roots(roots, self.max_entries, EXCLUDED_DIRS | skip, None)
        with self._lock:
            self._generation += 1
            if self._watch is not None and self._roots == roots:
                named = self._watch.changed()
                if named is not None and self._apply(named) and not self._watch.broken:
                    self._named[self._generation] = frozenset(named)  # with what a new folder holds, or a gone one held
                    self._named.pop(self._generation - _LOG_GENERATIONS, None)
                    return Scan(dict(self._keys), generation=self._generation)
            return self._walk(roots)

    def close(self) -> None:
        """Release the watch (a later scan walks again, and watches anew)."""
        with self._lock:
            if self._watch is not None:
                self._watch.close()
            self._watch, self._roots, self._keys = None, (), {}

    def watching(self, generation: int) -> bool:
        """Whether the watch that began at the walk of ``generation`` (or before it) is still reporting."""
        with self._lock:
            return self._watch is not None and not self._watch.broken and self._walked <= generation

    def named_since(self, older: int, newer: int) -> set[str] | None:
        """The paths events named between the scans ``older`` and ``newer`` (None: not known, compare all)."""
        with self._lock:
            if older < self._walked or older == 0 or newer < older:
                return None
            found: set[str] = set()
            for generation in range(older + 1, newer + 1):
                named = self._named.get(generation)
                if named is None:
                    return None
                found |= named
            return found

    def _walk(self, roots: tuple[str, ...]) -> Scan:
        if self._watch is not None:
            self._watch.close()
        watch = TreeWatch.start()
        inodes: dict[str, int] = {}
        found = walk_roots(roots, self.max_entries, EXCLUDED_DIRS, watch, inodes)
        self._walked, self._named = self._generation, {}
        if watch is not None and not found.truncated and not watch.broken:
            self._watch, self._roots, self._keys, self._inodes = watch, roots, dict(found.keys), inodes
        else:
            self._watch, self._roots, self._keys, self._inodes = None, (), {}, {}
            if watch is not None:
                watch.close()
        return Scan(found.keys, found.truncated, generation=self._generation)

    def _apply(self, named: set[str]) -> bool:
        """Bring the keys up to date with the paths events named (adding to ``named`` what lies under a folder made or
        gone); False when a walk is needed instead."""
        assert self._watch is not None
        pending = set(named)
        for path in named:  # a folder left out (an empty ``.ironhive``) is looked at again when its content changes
            parent = os.path.dirname(path)
            if (parent not in self._keys or os.path.basename(parent) == PROJECT_DIR_NAME) and _under(
                parent, self._roots
            ):
                pending.add(parent)
        own = hive_folders()
        named |= pending
        for path in sorted(pending, key=len):
            if not _under(path, self._roots):
                continue
            if path in self._roots:
                return False  # a root itself went or changed: walk again
            self._look(path, own, named)
            if len(self._keys) >= self.max_entries:
                return False
        return True

    def _look(self, path: str, own: frozenset[str], named: set[str]) -> None:
        """Update the key of ``path`` (and what lies under it) from what is there now."""
        assert self._watch is not None
        old = self._keys.get(path)
        try:
            st = os.lstat(path)
        except OSError:
            st = None
        admitted = st is not None and os.path.dirname(path) in self._keys and _admitted(path, st, EXCLUDED_DIRS, own)
        if st is None or not admitted:
            if old is not None:
                self._drop(path, old, named)
            if st is not None and _mount_point(os.path.basename(path), path, st):
                self._watch.add(path)
            return
        folder = stat.S_ISDIR(st.st_mode)
        was_folder = old is not None and stat.S_ISDIR(old[0])
        same = folder and self._inodes.get(path) == st.st_ino and self._watch.watches(path)  # an inode is reused
        if was_folder and not same:
            assert old is not None
            self._drop(path, old, named)  # another entry now: what the old folder held is gone from here
            was_folder = False
        self._keys[path] = stat_key(st)
        if folder and not was_folder:
            self._inodes[path] = st.st_ino
            found: dict[str, StatKey] = {}
            _walk_folder(path, found, self.max_entries, EXCLUDED_DIRS, own, self._watch, self._inodes)
            self._keys.update(found)
            named.update(found)

    def _drop(self, path: str, old: StatKey, named: set[str]) -> None:
        del self._keys[path]
        self._inodes.pop(path, None)
        if stat.S_ISDIR(old[0]):
            prefix = os.path.join(path, "")
            under = [p for p in self._keys if p.startswith(prefix)]
            for gone in under:
                del self._keys[gone]
                self._inodes.pop(gone, None)
            named.update(under)
            if self._watch is not None:
                self._watch.forget([path, *under])


def walk_roots(
    roots: tuple[str, ...],
    limit: int,
    excluded: frozenset[str],
    watch: TreeWatch | None,
    inodes: dict[str, int] | None = None,
) -> Scan:
    """A walk of ``roots``, watching each folder listed when ``watch`` is given (and noting folders' inodes)."""
    keys: dict[str, StatKey] = {}
    truncated = False
    own = hive_folders()
    for root in roots:
        try:
            st = os.lstat(root)
        except OSError:
            continue
        keys[root] = stat_key(st)
        if stat.S_ISDIR(st.st_mode):
            if inodes is not None:
                inodes[root] = st.st_ino
            truncated = _walk_folder(root, keys, limit, excluded, own, watch, inodes) or truncated
    return Scan(keys, truncated)


def _walk_folder(
    root: str,
    keys: dict[str, StatKey],
    limit: int,
    excluded: frozenset[str],
    own: frozenset[str],
    watch: TreeWatch | None,
    inodes: dict[str, int] | None = None,
) -> bool:
    """Add what lies under the folder ``root`` to ``keys``; True when the bound was reached."""
    pending = [root]
    while pending:
        folder = pending.pop()
        if watch is not None:
            watch.add(folder)  # before listing it: an entry made meanwhile is reported
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            if len(keys) >= limit:
                return True
            try:
                entry_st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not _admitted(entry.path, entry_st, excluded, own, entry.name):
                if watch is not None and _mount_point(entry.name, entry.path, entry_st):
                    watch.add(entry.path)  # its content, when it gets one, is reported
                continue
            keys[entry.path] = stat_key(entry_st)
            if stat.S_ISDIR(entry_st.st_mode):
                pending.append(entry.path)
                if inodes is not None:
                    inodes[entry.path] = entry_st.st_ino
    return False


def _admitted(path: str, st: os.stat_result, excluded: frozenset[str], own: frozenset[str], name: str = "") -> bool:
    """Whether the entry at ``path`` (named ``name``) belongs to a scan (see the module docstring for what does not)."""
    name = name or os.path.basename(path)
    if stat.S_ISDIR(st.st_mode):
        return name not in excluded and path not in own and not _mount_point(name, path, st)
    return not is_hive_partial(name)


def _mount_point(name: str, path: str, st: os.stat_result) -> bool:
    """An empty ``.ironhive`` folder: what the sandbox mounts its guard on, made and removed by whichever hive's command."""
    if name != PROJECT_DIR_NAME or not stat.S_ISDIR(st.st_mode):
        return False
    try:
        with os.scandir(path) as listing:
            return next(listing, None) is None
    except OSError:
        return False


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(os.path.join(root, "")) for root in roots)
