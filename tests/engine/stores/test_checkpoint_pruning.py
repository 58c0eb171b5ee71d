"""The checkpoint store pruned by age, count and size (turns oldest first, blobs no kept turn uses), once a day."""

from __future__ import annotations

import os
import time
from pathlib import Path

from engine.checkpoints.options import CheckpointOptions
from engine.checkpoints.pruning import prune_checkpoints, prune_daily
from engine.checkpoints.store import Change, CheckpointStore, FileState, Manifest
from engine.stores.caps import Caps
from engine.stores.stamp import stamp_path

DAY = 86_400
NOW = time.time()
UNBOUNDED = 10**12


def turn(store: CheckpointStore, *, days_old: float, content: bytes, tag: str) -> Manifest:
    """A saved turn made ``days_old`` days before NOW that changed one file, whose before-state is ``content``."""
    made = NOW - days_old * DAY
    digest = store.put_bytes(content)
    os.utime(store.blob_path(digest), (made, made))
    before = FileState(kind="file", blob=digest, mode=0o644)
    manifest = Manifest(
        id=f"{int(made * 1e9):020d}-{tag}", created=made, cwd="/p", changes={"/p/a": Change(before, None)}
    )
    store.save(manifest)
    return manifest


def kept(store: CheckpointStore) -> list[str]:
    return [manifest.id.split("-")[1] for manifest in store.manifests()]


def blobs(store: CheckpointStore) -> int:
    return len(list(store.objects.glob("*/*")))


def test_turns_older_than_the_age_cap_go_with_their_blobs(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    turn(store, days_old=40, content=b"old", tag="aaaaaa")
    turn(store, days_old=2, content=b"new", tag="bbbbbb")
    prune_checkpoints(store, Caps(keep_days=30, max_count=UNBOUNDED, max_bytes=UNBOUNDED), now=NOW)
    assert kept(store) == ["bbbbbb"] and blobs(store) == 1


def test_beyond_the_count_cap_the_oldest_turns_go(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    for number in range(4):
        turn(store, days_old=10 - number, content=b"%d" % number, tag=f"t{number}")
    verdict = prune_checkpoints(store, Caps(keep_days=30, max_count=1, max_bytes=UNBOUNDED), now=NOW)
    assert kept(store) == ["t3"] and blobs(store) == 1
    assert len(verdict.turns.removed) == 3 and len(verdict.blobs_removed) == 3


def test_beyond_the_size_cap_the_oldest_turns_go_until_the_store_fits(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    for number in range(4):
        turn(store, days_old=10 - number, content=bytes([number]) * 10_000, tag=f"t{number}")
    prune_checkpoints(store, Caps(keep_days=30, max_count=UNBOUNDED, max_bytes=25_000), now=NOW)
    assert kept(store) == ["t2", "t3"] and blobs(store) == 2


def test_a_blob_a_kept_turn_still_uses_stays(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    turn(store, days_old=40, content=b"shared", tag="old")
    turn(store, days_old=1, content=b"shared", tag="new")
    prune_checkpoints(store, Caps(keep_days=30, max_count=UNBOUNDED, max_bytes=UNBOUNDED), now=NOW)
    assert kept(store) == ["new"] and blobs(store) == 1


def test_a_dry_run_removes_nothing(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    turn(store, days_old=40, content=b"old", tag="aaaaaa")
    verdict = prune_checkpoints(store, Caps(keep_days=30, max_count=1, max_bytes=1), dry_run=True, now=NOW)
    assert len(verdict.turns.removed) == 1 and kept(store) == ["aaaaaa"] and blobs(store) == 1


def test_a_session_start_prunes_the_store_at_most_once_a_day(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "0123456789abcdef")
    options = CheckpointOptions(keep_days=30)
    turn(store, days_old=40, content=b"first", tag="first")
    assert prune_daily(store, options) is not None and kept(store) == []
    turn(store, days_old=40, content=b"second", tag="second")
    assert prune_daily(store, options) is None
    assert kept(store) == ["second"]  # the same day: the store was not even listed
    yesterday = time.time() - DAY - 60
    os.utime(stamp_path(f"checkpoints-{store.root.name}"), (yesterday, yesterday))
    prune_daily(store, options)
    assert kept(store) == []


def test_a_prune_reads_a_turn_again_only_when_its_manifest_changed(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    made = turn(store, days_old=5, content=b"first", tag="aaaaaa")
    first = made.changes["/p/a"].before
    assert first is not None
    old = NOW - 40 * DAY
    os.utime(store.blob_path(first.blob), (old, old))  # old enough to go the moment no kept turn uses it
    wide = Caps(keep_days=30, max_count=UNBOUNDED, max_bytes=UNBOUNDED)
    prune_checkpoints(store, wide, now=NOW)
    assert store.blob_path(first.blob).exists()

    # The manifest now names another blob, but its file keeps its stamp (same size, inode and time):
    # the prune goes by what it remembered of the turn and keeps the first blob.
    second = store.put_bytes(b"second")
    manifest = store.turns / f"{made.id}.json"
    stamp = os.stat(manifest)
    with open(manifest, "r+b") as rewrite:
        text = rewrite.read().replace(first.blob.encode(), second.encode())
        rewrite.seek(0)
        rewrite.write(text)
    os.utime(manifest, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    prune_checkpoints(store, wide, now=NOW)
    assert store.blob_path(first.blob).exists() and store.blob_path(second).exists()

    # Once the file's stamp moves the turn is read again: the first blob, no longer used, goes.
    os.utime(manifest, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000))
    prune_checkpoints(store, wide, now=NOW)
    assert not store.blob_path(first.blob).exists() and store.blob_path(second).exists()
