"""A stat-scan of the folders a shell command may write, with the bytes of every small file kept beforehand.

A shell command's writes cannot be known before it runs, and a file's old bytes cannot be read once
it has been overwritten, so before each command the tree is scanned and every file the store does
not have yet is kept (content-addressed, so a file kept once costs nothing the next time). A file
is read again only when its size, modification time, inode or mode changed since it was last
hashed. After the command a stat-only scan finds what changed, and the before-states of exactly
those paths go into the turn's checkpoint.

What is scanned, and how a later scan looks only at what the kernel reported changed, is
:mod:`.walk`'s business. In a git repository a clean tracked file is not read at all: its
before-state names the index's blob (:mod:`.git_blobs`), copied into the store only once a command
changed the file.
"""

from __future__ import annotations

import stat
import threading
import time
from collections.abc import Iterable

from engine.checkpoints.git_blobs import GitBlobs, copy_out, same_bytes
from engine.checkpoints.open_turns import PendingScan
from engine.checkpoints.scan_base import ScanBase
from engine.checkpoints.states import capture_state, current_state
from engine.checkpoints.store import CheckpointStore, FileState
from engine.checkpoints.walk import (
    EXCLUDED_DIRS,
    MAX_ENTRIES,
    Scan,
    StatKey,
    TreeScanner,
    changed_paths,
    hive_folders,
    is_hive_partial,
    walk_roots,
)

__all__ = ["EXCLUDED_DIRS", "Scan", "TreeIndex", "changed_paths", "hive_folders", "is_hive_partial", "walk_roots"]
MAX_NEW_BYTES = 512_000_000
"""Bytes read into the store per snapshot at most: a huge unversioned folder is kept over several commands."""
_GIT_WORTH = 32
"""Files to keep at once from which reading the repository's index is worth its cost (a first snapshot, say)."""
_RACY_NS = 2_000_000_000
"""A file changed this recently may change again without its timestamp moving: it is hashed again next time."""
_UNKNOWN: StatKey = (-1, 0, 0, 0, 0)


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
        self.max_new_bytes = max_new_bytes
        self._scanner = TreeScanner(max_entries)
        self._known: dict[str, tuple[StatKey, FileState | None]] = {}
        self._lock = threading.Lock()
        self._repos: dict[str, GitBlobs | None] = {}
        self._snapshot_generation = 0
        self._again: set[str] = set()
        """Paths to look at again at the next snapshot whatever their key (left over the budget, or racy)."""
        self.base = ScanBase(store)

    def close(self) -> None:
        """The session ended: release the watch and remove the session's base pre-scan."""
        self._scanner.close()
        with self._lock:
            self.base.close()

    def scan(self, roots: Iterable[str], skip: frozenset[str] = frozenset()) -> Scan:
        """A stat-only scan of ``roots`` (the roots themselves included), leaving out folders named in ``skip``."""
        return self._scanner.scan(tuple(roots), skip)

    def snapshot(self, roots: Iterable[str], skip: frozenset[str] = frozenset()) -> Scan:
        """Scan ``roots`` and make sure the store holds the current bytes of every small file found.

        Past :attr:`max_new_bytes` read, the files left are not kept this time (a change to them is unrecorded).
        """
        roots = tuple(roots)
        reading = None
        if not self._known:  # a session's first snapshot: git reads its index while the tree is walked
            reading = threading.Thread(target=self._read_indexes, args=(roots,), daemon=True)
            reading.start()
        found = self.scan(roots, skip)
        if reading is not None:
            reading.join()
        named = self._scanner.named_since(self._snapshot_generation, found.generation)
        watched = named is not None or self._scanner.watching(found.generation)
        racy = frozenset() if watched else _racy(found.keys)  # a watched file's next change is reported
        with self._lock:
            self._snapshot_generation = found.generation
            stale = self._stale(found, named)
            if named is None or self.base.since is None:
                self.base.since = None  # what changed since the base is not known: a new one is written
            else:
                self.base.since |= named | {path for path, _ in stale}
            repos = self._git(roots, stale)
            budget = self.max_new_bytes
            for path, key in stale:
                blob = next((b for r in repos if (b := r.clean_blob(path, key[1], key[2], key[3]))), None)
                if blob is not None:  # the repository holds its bytes: nothing to read or copy
                    self._known[path] = (key, FileState(kind="file", git=blob, mode=stat.S_IMODE(key[0])))
                    continue
                if stat.S_ISREG(key[0]) and key[1] <= self.max_file_bytes:
                    budget -= key[1]
                if budget < 0:
                    self._known[path] = (_UNKNOWN, None)
                    self._again.add(path)
                    continue
                state = capture_state(path, self.store, self.max_file_bytes)
                self._known[path] = (_UNKNOWN if path in racy else key, state)
                if path in racy:
                    self._again.add(path)
        return Scan(found.keys, found.truncated, racy, found.generation)

    def _stale(self, found: Scan, named: set[str] | None) -> list[tuple[str, StatKey]]:
        """The paths whose before-state must be taken again: all whose key changed, or those events named."""
        if named is None:
            self._again.clear()
            return [
                (p, key) for p, key in found.keys.items() if (known := self._known.get(p)) is None or known[0] != key
            ]
        looked = named | self._again
        self._again = set()
        return [(p, found.keys[p]) for p in sorted(looked) if p in found.keys]

    def _git(self, roots: tuple[str, ...], stale: list[tuple[str, StatKey]]) -> list[GitBlobs]:
        """The repositories of ``roots``, their index read again if changed, when enough files are to be kept."""
        if sum(stat.S_ISREG(key[0]) for _, key in stale) < _GIT_WORTH:
            return []
        self._read_indexes(roots)
        return [repo for root in roots if (repo := self._repos[root]) is not None]

    def _read_indexes(self, roots: tuple[str, ...]) -> None:
        """Read the index of each root's repository (again only when it changed)."""
        for root in roots:
            if root not in self._repos:
                self._repos[root] = GitBlobs.for_root(root)
            repo = self._repos[root]
            if repo is not None:
                repo.refresh()

    def changes(self, before: Scan, after: Scan) -> list[str]:
        """The paths created, deleted or changed between a snapshot and a later scan.

        A path whose stat key stayed but that may have changed (racy at the snapshot, or named by an
        event) is compared by content with its kept state.
        """
        named = self._scanner.named_since(before.generation, after.generation)
        check: set[str] | frozenset[str]
        if named is None:
            changed = set(changed_paths(before, after))
            check = before.racy - changed
        else:
            changed = {path for path in named if before.keys.get(path) != after.keys.get(path)}
            check = {path for path in named if path in before.keys} - changed
        for path in check:
            known = self._known.get(path)
            state = known[1] if known is not None else None
            if named is not None and state is None:
                changed.add(path)  # named by an event, nothing kept to compare with
            elif state is not None and state.kind != "unrecorded" and not _same(path, state):
                changed.add(path)
        return sorted(changed)

    def kept_states(self, before: Scan, paths: Iterable[str] | None = None) -> dict[str, FileState]:
        """The before-state kept of each path of a snapshot (or of those of ``paths`` in it; one without is left out)."""
        with self._lock:
            known = {path: self._known.get(path) for path in (before.keys if paths is None else paths)}
        return {
            path: entry[1]
            for path, entry in known.items()
            if entry is not None and entry[1] is not None and path in before.keys
        }

    def pending_scan(self, roots: tuple[str, ...], before: Scan) -> PendingScan:
        """The pre-scan ``before`` as saved before a command: what changed since the session's base (:mod:`.scan_base`)."""
        started = time.time()
        whole = self.base.wants_whole(roots, len(before.keys))
        states = self.kept_states(before, None if whole or self.base.since is None else self.base.since)
        return self.base.pending(started, roots, before.keys, states, before.racy)

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


def _racy(keys: dict[str, StatKey]) -> frozenset[str]:
    """The regular files modified so recently that a change in the same clock tick would not move their keys."""
    now = time.time_ns()
    return frozenset(p for p, key in keys.items() if stat.S_ISREG(key[0]) and now - key[2] < _RACY_NS)


def _same(path: str, state: FileState) -> bool:
    """Whether what is at ``path`` still has the bytes, mode or target of ``state``."""
    return same_bytes(path, state) if state.git else current_state(path) == state
