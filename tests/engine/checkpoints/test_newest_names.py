"""The newest turn names noted beside the checkpoint store: used while the turns folder is unchanged, never stale."""

from __future__ import annotations

import os
import time
from pathlib import Path

import msgspec

from engine.checkpoints.newest import KEPT, NOTE_FILE
from engine.checkpoints.store import Change, CheckpointStore, FileState, Manifest
from engine.checkpoints.undo import next_to_undo

NOW = time.time()


def save_turn(store: CheckpointStore, number: int) -> Manifest:
    made = NOW - 10_000 + number
    digest = store.put_bytes(b"version %d" % number)
    manifest = Manifest(
        id=f"{int(made * 1e9):020d}-{number:06x}",
        created=made,
        cwd="/p",
        changes={"/p/a": Change(FileState(kind="file", blob=digest, mode=0o644), None)},
    )
    store.save(manifest)
    return manifest


def settle(store: CheckpointStore) -> None:
    """The turns folder as a later session meets it: last changed long ago (a note is trusted only then)."""
    os.utime(store.turns, (NOW - 3600, NOW - 3600))


def test_a_note_is_taken_only_of_a_folder_that_settled_and_then_used(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    turns = [save_turn(store, n) for n in range(3)]
    os.utime(store.turns, (time.time() + 3600,) * 2)  # changed "just now", whatever pauses a busy machine makes
    assert store.newest_names().names[0] == f"{turns[-1].id}.json"
    assert not (tmp_path / NOTE_FILE).exists()  # the folder changed just now: its stamp could still move in this tick

    settle(store)
    store.newest_names()
    note = msgspec.msgpack.decode((tmp_path / NOTE_FILE).read_bytes())
    assert note[1] == 3 and note[2][0] == f"{turns[-1].id}.json"

    # What the note says is what undo goes by while the folder keeps its stamp: here a note that leaves
    # out the newest turn (as no hive would write it) makes undo reach the one before.
    note[2] = note[2][1:]
    (tmp_path / NOTE_FILE).write_bytes(msgspec.msgpack.encode(note))
    reached = next_to_undo(store)
    assert isinstance(reached, Manifest) and reached.id == turns[-2].id


def test_a_turn_saved_after_the_note_is_the_one_undo_reaches(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    for n in range(3):
        save_turn(store, n)
    settle(store)
    store.newest_names()
    assert (tmp_path / NOTE_FILE).exists()

    newest = save_turn(store, 3)  # within the same second: the folder's stamp moved all the same

    reached = next_to_undo(store)
    assert isinstance(reached, Manifest) and reached.id == newest.id
    assert store.newest_names().count == 4


def test_past_the_noted_names_the_older_turns_follow_once_each(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    turns = [save_turn(store, n) for n in range(KEPT + 6)]
    settle(store)
    store.newest_names()  # noted: the newest KEPT names of KEPT + 6

    seen = [record.id for record in store.newest_first() if isinstance(record, Manifest)]

    assert seen == [turn.id for turn in reversed(turns)]
