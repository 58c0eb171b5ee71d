"""A stat-scan of the folders a shell command may write, with the bytes of every small file kept beforehand.

A shell command's writes cannot be known before it runs, and a file's old bytes cannot be read once
it has been overwritten, so before each command the tree is scanned and every file the store does
not have yet is kept (content-addressed, so a file kept once costs nothing the next time). A file
is read again only when its size, modification time, inode or mode changed since it was last
hashed. After the command a stat-only scan finds what changed, and the before-states of exactly
those paths go into the turn's checkpoint.

Left out of the scan, and so of undo: ``.git`` (the repository's own database), hive's scratch
folder ``.hive``, the dependency and cache folders the sandbox scan skips (``node_modules``,
``.venv``...), and hive's own files: the partial names its atomic writers use for a moment (another
hive's write in flight must never become this turn's change) and its data, config and cache folders
when they lie inside the project, and an empty ``.ironhive`` folder (the sandbox's mount point for its
guard, which another hive's command may hold past this one's end). Symbolic links to folders are recorded as links, never followed. The scan stops after
:data:`MAX_ENTRIES` entries and says so.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from collections.abc import Iterable

from msgspec import Struct

from engine.checkpoints.git_blobs import GitBlobs, copy_out, same_bytes
from engine.checkpoints.states import capture_state, current_state
from engine.checkpoints.store import CheckpointStore, FileState
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
MAX_NEW_BYTES = 512_000_000
"""Bytes read into the store per snapshot at most: a huge unversioned folder is kept over several commands."""
_GIT_WORTH = 32
"""Files to keep at once from which reading the repository's index is worth its cost (a first snapshot, say)."""
_RACY_NS = 2_000_000_000
"""A file changed this recently may change again without its timestamp moving: it is hashed again next time."""

StatKey = tuple[int, int, int, int, int]
HIVE_PARTIAL = re.compile(r"\..+\.[0-9a-f]{8}\.tmp|\..+\.hive-(?:restore|undo)-[0-9a-f]{8,12}|.+\.tmp-[0-9a-f]{8}")
"""The temporary names hive's atomic writers give a file for a moment (``write_file``, undo, the scratch folder)."""


def is_hive_partial(name: str) -> bool:
    """Whether ``name`` is one of hive's temporary names: never part of a turn."""
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


def stat_key(st: os.stat_result) -> StatKey:
    """What tells whether a path changed: type and mode, size, modification time, inode (folders: type and mode)."""
    if stat.S_ISDIR(st.st_mode):
        return (st.st_mode, 0, 0, 0, 0)
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


class TreeIndex:
    """Scans roots and keeps the before-state of every path, hashing a file again only when it changed."""

    def __init__(
        self,
        store: CheckpointStore,
        max_file_bytes: int,
        *,
        max_entries: int = MAX_ENTRIES,
        max_new_bytes: int = MAX_NEW_BYTES,
    ) -> None:
        self.store = store
        self.max_file_bytes = max_file_bytes
        self.max_entries = max_entries
        self.max_new_bytes = max_new_bytes
        self._known: dict[str, tuple[StatKey, FileState | None]] = {}
        self._lock = threading.Lock()
        self._repos: dict[str, GitBlobs | None] = {}

    def scan(self, roots: Iterable[str], skip: frozenset[str] = frozenset()) -> Scan:
        """A stat-only scan of ``roots`` (the roots themselves included), leaving out folders named in ``skip``."""
        keys: dict[str, StatKey] = {}
        truncated = False
        own = hive_folders()
        for root in roots:
            truncated = _walk(root, keys, self.max_entries, EXCLUDED_DIRS | skip, own) or truncated
        return Scan(keys, truncated)

    def snapshot(self, roots: Iterable[str], skip: frozenset[str] = frozenset()) -> Scan:
        """Scan ``roots`` and make sure the store holds the current bytes of every small file found.

        Past :attr:`max_new_bytes` read, the files left are not kept this time (a change to them is unrecorded).
        """
        roots = list(roots)
        found = self.scan(roots, skip)
        budget = self.max_new_bytes
        now = time.time_ns()
        racy = frozenset(p for p, key in found.keys.items() if stat.S_ISREG(key[0]) and now - key[2] < _RACY_NS)
        with self._lock:
            stale = [
                (p, key) for p, key in found.keys.items() if (known := self._known.get(p)) is None or known[0] != key
            ]
            repos = self._git(roots, stale)
            for path, key in stale:
                blob = next((b for r in repos if (b := r.clean_blob(path, key[1], key[2], key[3]))), None)
                if blob is not None:  # the repository holds its bytes: nothing to read or copy
                    self._known[path] = (key, FileState(kind="file", git=blob, mode=stat.S_IMODE(key[0])))
                    continue
                if stat.S_ISREG(key[0]) and key[1] <= self.max_file_bytes:
                    budget -= key[1]
                if budget < 0:
                    self._known[path] = ((-1, 0, 0, 0, 0), None)
                    continue
                state = capture_state(path, self.store, self.max_file_bytes)
                self._known[path] = ((-1, 0, 0, 0, 0) if path in racy else key, state)
        return Scan(found.keys, found.truncated, racy)

    def _git(self, roots: list[str], stale: list[tuple[str, StatKey]]) -> list[GitBlobs]:
        """The repositories of ``roots``, their index read again if changed, when enough files are to be kept."""
        if sum(stat.S_ISREG(key[0]) for _, key in stale) < _GIT_WORTH:
            return []
        for root in roots:
            if root not in self._repos:
                self._repos[root] = GitBlobs.for_root(root)
        repos = [repo for root in roots if (repo := self._repos[root]) is not None]
        for repo in repos:
            repo.refresh()
        return repos

    def changes(self, before: Scan, after: Scan) -> list[str]:
        """The paths created, deleted or changed between a snapshot and a later scan.

        A file that was racy at the snapshot and kept its stat key is compared by content.
        """
        changed = set(changed_paths(before, after))
        for path in before.racy - changed:
            known = self._known.get(path)
            state = known[1] if known is not None else None
            if state is not None and state.kind == "file" and not _same(path, state):
                changed.add(path)
        return sorted(changed)

    def kept_states(self, before: Scan) -> dict[str, FileState]:
        """The before-state kept of each path of a snapshot (a path without one is left out)."""
        with self._lock:
            known = {path: self._known.get(path) for path in before.keys}
        return {path: entry[1] for path, entry in known.items() if entry is not None and entry[1] is not None}

    def before_states(self, paths: list[str], before: Scan) -> dict[str, FileState | None]:
        """The state each of ``paths`` had at the ``before`` scan, a file the repository held copied out of it now."""
        states = {path: self.before_state(path, before) for path in paths}
        sizes = {path: before.keys[path][1] for path in paths if path in before.keys}
        return copy_out(states, sizes, self.store, [repo for repo in self._repos.values() if repo is not None])

    def before_state(self, path: str, before: Scan) -> FileState | None:
        """The state ``path`` had at the ``before`` scan (None: it did not exist)."""
        if path not in before.keys:
            return None
        known = self._known.get(path)
        state = known[1] if known is not None else None
        if state is None:
            return FileState(kind="unrecorded", reason="it was not snapshotted before the command")
        if state.kind == "file" and not state.git and not self.store.has_blob(state.blob):
            return FileState(kind="unrecorded", reason="its snapshot was removed from the store")
        return state


def _same(path: str, state: FileState) -> bool:
    """Whether the file at ``path`` still has the bytes and mode of ``state``."""
    return same_bytes(path, state) if state.git else current_state(path) == state


def changed_paths(before: Scan, after: Scan) -> list[str]:
    """The paths created, deleted or changed between two scans."""
    paths = set(before.keys) | set(after.keys)
    return sorted(path for path in paths if before.keys.get(path) != after.keys.get(path))


def _sandbox_mount_point(name: str, path: str, st: os.stat_result) -> bool:
    """An empty ``.ironhive`` folder: what the sandbox mounts its guard on, made and removed by whichever hive's command."""
    if name != PROJECT_DIR_NAME or not stat.S_ISDIR(st.st_mode):
        return False
    try:
        with os.scandir(path) as listing:
            return next(listing, None) is None
    except OSError:
        return False


def _walk(root: str, keys: dict[str, StatKey], limit: int, excluded: frozenset[str], own: frozenset[str]) -> bool:
    """Add ``root`` and what lies under it to ``keys``; True when the bound was reached."""
    try:
        st = os.lstat(root)
    except OSError:
        return False
    keys[root] = stat_key(st)
    if not stat.S_ISDIR(st.st_mode):
        return False
    pending = [root]
    while pending:
        folder = pending.pop()
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
            if stat.S_ISDIR(entry_st.st_mode) and (entry.name in excluded or entry.path in own):
                continue
            if is_hive_partial(entry.name) or _sandbox_mount_point(entry.name, entry.path, entry_st):
                continue
            keys[entry.path] = stat_key(entry_st)
            if stat.S_ISDIR(entry_st.st_mode):
                pending.append(entry.path)
    return False
