"""Open turns: what another live turn claimed stays out of a command's changes, hive's partial files never join a turn."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.checkpoints import open_turns
from engine.checkpoints.open_turns import TurnHandle
from engine.checkpoints.undo import UndoRefused, pending, revert
from tests.engine.checkpoints.helpers import texts, workspace


def test_a_command_leaves_out_what_another_live_turn_claimed_and_hives_partial_files(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    other = TurnHandle(ws.store, "00000000000000000001-other", ws.root, touched=[str(ws.root / "theirs.txt")])
    try:
        ws.call(
            "execute_command",
            command="echo mine > mine.txt; echo theirs > theirs.txt; echo x > .a.txt.0123abcd.tmp",
        )
        ws.end_round(first=True)
    finally:
        other.close()
    (turn,) = pending(ws.store)
    assert sorted(os.path.relpath(p, ws.root) for p in turn.effective) == ["mine.txt"]
    revert(turn, ws.store)
    assert texts(ws.root) == {"theirs.txt": "theirs\n", ".a.txt.0123abcd.tmp": "x\n"}


def test_a_dead_turns_claim_is_ignored_and_its_record_cleaned(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    other = TurnHandle(ws.store, "00000000000000000001-other", ws.root, touched=[str(ws.root / "f.txt")])
    os.close(other._lock)  # as when its process ends however it ends: the lock drops, the record stays
    assert [t.turn for t in open_turns.recorded_turns(ws.store)] == [other.turn_id]
    assert open_turns.live_turns(ws.store) == []
    ws.call("execute_command", command="echo made > f.txt")
    ws.end_round(first=True)
    (turn,) = pending(ws.store)
    assert list(turn.effective) == [str(ws.root / "f.txt")]
    assert open_turns.turn_ids(ws.store) == []  # the dead record was cleaned, and this turn's went as it ended


def test_undo_refuses_a_path_a_live_turn_is_working_on_and_force_leaves_it(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    ws.call("write_file", path="a.txt", content="a")
    ws.call("write_file", path="b.txt", content="b")
    ws.end_round(first=True)
    (turn,) = pending(ws.store)
    other = TurnHandle(ws.store, "99999999999999999999-other", ws.root, touched=[str(ws.root / "a.txt")])
    try:
        with pytest.raises(UndoRefused, match=rf"a.txt: another hive \(process {os.getpid()}\) is working on it now"):
            revert(turn, ws.store)
        assert texts(ws.root) == {"a.txt": "a", "b.txt": "b"}
        revert(turn, ws.store, force=True)
    finally:
        other.close()
    assert texts(ws.root) == {"a.txt": "a"}
