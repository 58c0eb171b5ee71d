"""Settling the records of turns whose process ended: a command cut short becomes part of its turn's checkpoint.

A hive killed during a shell command (SIGKILL, a crash, the machine's OOM killer) never scanned the
tree after the command, so its checkpoint lacks what the command changed. Its pre-scan was saved
before the command ran (:mod:`.open_turns`); settling compares it with the tree now and adds every
changed path to the dead turn's manifest, its before-state taken from the pre-scan, except the paths
another hive has had a hand in since: those a live turn declared, and those of any checkpoint saved
after the pre-scan began. Then the dead turn's records go.

Settling runs when a run starts (beside pruning), before every command's pre-scan, and before
``hive undo``, ``/undo`` and ``hive checkpoints list`` read the store.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection

from engine.checkpoints import open_turns
from engine.checkpoints.git_blobs import GitBlobs, copy_out, same_bytes
from engine.checkpoints.open_turns import OpenTurn, PendingScan
from engine.checkpoints.scan_base import remove_dead_bases, whole_scan
from engine.checkpoints.states import current_state
from engine.checkpoints.store import Change, CheckpointStore, FileState, Manifest
from engine.checkpoints.walk import EXCLUDED_DIRS, MAX_ENTRIES, Scan, changed_paths, walk_roots

_CLOCK_MARGIN_S = 0.05
"""Checkpoints saved this long before a pre-scan began count as saved after it (file times lag by a clock tick)."""


def settle(store: CheckpointStore) -> int:
    """Settle every dead turn's records in ``store``; how many commands cut short were recovered."""
    recovered = 0
    records = {turn.turn: turn for turn in open_turns.recorded_turns(store)}
    for turn_id in open_turns.turn_ids(store):
        with open_turns.dead_turn(store, turn_id) as dead:
            if not dead:
                continue
            record, scan = records.get(turn_id), open_turns.pending_scan(store, turn_id)
            whole = whole_scan(store, scan) if scan is not None else None
            if record is not None and whole is not None:
                recovered += _recover(store, record, whole)
            open_turns.forget(store, turn_id)
    remove_dead_bases(store)
    return recovered


def _recover(store: CheckpointStore, record: OpenTurn, scan: PendingScan) -> int:
    """Add what the dead turn's last command changed to its manifest; 1 when something was added."""
    before = Scan(scan.keys, False, scan.racy)
    now = walk_roots(scan.roots, MAX_ENTRIES, EXCLUDED_DIRS, None)
    changed = set(changed_paths(before, now))
    changed |= {path for path in scan.racy - changed if _differs(path, scan.states.get(path))}
    changed -= _others_since(store, record.turn, scan.started)
    if not changed:
        return 0
    manifest = _manifest(store, record)
    repos = [repo for root in scan.roots if (repo := GitBlobs.for_root(root)) is not None]
    sizes = {path: key[1] for path, key in scan.keys.items() if path in changed}
    befores = copy_out({path: _before(path, scan, store) for path in changed}, sizes, store, repos)
    for path in sorted(changed):
        manifest.changes.setdefault(path, Change(befores[path], None))
        manifest.changes[path] = Change(manifest.changes[path].before, current_state(path))
    note = f"(hive process {record.pid} ended during a command)"
    manifest.label = f"{manifest.label}; {note}" if manifest.label else note
    if not manifest.effective:
        return 0
    store.save(manifest)
    return 1


def _differs(path: str, kept: FileState | None) -> bool:
    if kept is None or kept.kind != "file":
        return False
    return not same_bytes(path, kept) if kept.git else current_state(path) != kept


def _others_since(store: CheckpointStore, turn_id: str, since: float) -> set[str]:
    """Paths other hives have had a hand in since ``since``: declared by a live turn, or in a checkpoint saved since."""
    return set(open_turns.busy_paths(store, but=turn_id)) | saved_since(store, since, but={turn_id})


def saved_since(store: CheckpointStore, since: float, but: Collection[str]) -> set[str]:
    """The paths of the checkpoints (but those of the turns ``but``) saved since ``since``: turns that may have
    ended meanwhile."""
    recent = {name[:-5] for name, saved in _saved_times(store).items() if saved >= since - _CLOCK_MARGIN_S}
    recent -= set(but)
    if not recent:
        return set()
    return {path for manifest in store.manifests() if manifest.id in recent for path in manifest.changes}


def _saved_times(store: CheckpointStore) -> dict[str, float]:
    """Each manifest's file name and when it was last written."""
    times = {}
    try:
        with os.scandir(store.turns) as listing:
            for entry in listing:
                if entry.name.endswith(".json") and not entry.name.startswith("."):
                    with contextlib.suppress(OSError):
                        times[entry.name] = entry.stat(follow_symlinks=False).st_mtime
    except OSError:
        pass
    return times


def _manifest(store: CheckpointStore, record: OpenTurn) -> Manifest:
    """The dead turn's manifest (a new one when it died in its first round, before any was saved)."""
    found = next((m for m in store.manifests() if m.id == record.turn), None)
    return found or Manifest(id=record.turn, created=record.started, cwd=record.cwd)


def _before(path: str, scan: PendingScan, store: CheckpointStore) -> FileState | None:
    """The state ``path`` had at the pre-scan (None: it did not exist)."""
    if path not in scan.keys:
        return None
    state = scan.states.get(path)
    if state is None:
        return FileState(kind="unrecorded", reason="it was not snapshotted before the command")
    if state.kind == "file" and not state.git and not store.has_blob(state.blob):
        return FileState(kind="unrecorded", reason="its snapshot was removed from the store")
    return state
