"""Checkpoints of real tool calls, and undo putting the tree back exactly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.checkpoints.undo import UndoRefused, conflicts, pending, revert, rewind
from tests.engine.checkpoints.helpers import picture, texts, workspace


def test_undo_reverts_writes_edits_and_shell_changes_of_the_last_turn(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws.root / "keep.txt").write_text("one\n")
    (ws.root / "gone.sh").write_text("#!/bin/sh\n")
    (ws.root / "gone.sh").chmod(0o755)
    start = picture(ws.root)
    ws.call("write_file", path="new/deep/file.txt", content="made")
    ws.call("edit_file", path="keep.txt", old_string="one", new_string="two")
    ws.call("execute_command", command="rm gone.sh && echo out > made.txt && chmod 600 keep.txt")
    ws.end_round(first=True)
    [turn] = pending(ws.store)
    report = revert(turn, ws.store)
    assert picture(ws.root) == start
    assert "gone.sh" in " ".join(report.restored) and pending(ws.store) == []


def test_each_turn_is_undone_on_its_own_the_newest_first(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    ws.call("write_file", path="a.txt", content="1")
    ws.end_round(first=True)
    after_first = picture(ws.root)
    ws.call("write_file", path="a.txt", content="2")
    ws.end_round(first=True, last=False)
    ws.call("execute_command", command="echo 3 > a.txt")
    ws.end_round(first=False)  # a second round of the same turn
    newest, oldest = pending(ws.store)
    revert(newest, ws.store)
    assert picture(ws.root) == after_first
    revert(oldest, ws.store)
    assert picture(ws.root) == {}


def test_undo_refuses_when_a_file_changed_after_hive_touched_it_and_force_restores_only_the_others(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    (ws.root / "a.txt").write_text("mine")
    (ws.root / "b.txt").write_text("b before")
    ws.call("write_file", path="a.txt", content="hive's")
    ws.call("write_file", path="b.txt", content="b by hive")
    ws.call("write_file", path="made.txt", content="made by hive")
    ws.end_round(first=True)
    (ws.root / "a.txt").write_text("edited by hand")
    (ws.root / "made.txt").write_text("made by hive, then edited by hand")
    [turn] = pending(ws.store)
    with pytest.raises(UndoRefused) as refused:
        revert(turn, ws.store)
    assert "changed after hive touched it" in str(refused.value)
    assert (ws.root / "a.txt").read_text() == "edited by hand"
    report = revert(turn, ws.store, force=True)
    assert texts(ws.root) == {
        "a.txt": "edited by hand",
        "b.txt": "b before",
        "made.txt": "made by hive, then edited by hand",
    }
    assert sorted(Path(c.path).name for c in report.skipped) == ["a.txt", "made.txt"]
    assert [Path(p).name for p in report.restored] == ["b.txt"] and report.removed == []


def test_a_file_too_large_to_keep_makes_undo_refuse(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    ws.recorder.max_file_bytes = ws.index.max_file_bytes = 4
    (ws.root / "big.bin").write_bytes(b"0123456789")
    ws.call("execute_command", command="echo small > big.bin")
    ws.end_round(first=True)
    [turn] = pending(ws.store)
    assert [c.path for c in conflicts(turn, ws.store)] == [str(ws.root / "big.bin")]


def test_a_read_only_sandbox_needs_no_snapshot(tmp_path: Path) -> None:
    ws = workspace(tmp_path, sandbox="read-only")
    if not ws.sandbox.confined:
        pytest.skip(f"no sandbox here: {ws.sandbox.problem}")
    ws.call("execute_command", command="echo x > a.txt || true")
    ws.end_round(first=True)
    assert not os.path.exists(ws.root / "a.txt") and pending(ws.store) == []


def test_with_the_sandbox_off_files_the_parser_sees_written_outside_the_project_are_kept(tmp_path: Path) -> None:
    ws = workspace(tmp_path, sandbox="off")
    outside = tmp_path / "outside.txt"
    outside.write_text("before")
    ws.call("execute_command", command=f"echo after > {outside}")
    ws.end_round(first=True)
    [turn] = pending(ws.store)
    revert(turn, ws.store)
    assert outside.read_text() == "before"


def test_old_checkpoints_are_pruned(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    ws.call("write_file", path="a.txt", content="1")
    ws.end_round(first=True)
    [turn] = pending(ws.store)
    assert ws.store.prune(30, now=turn.created + 31 * 86400) == 1
    assert ws.store.manifests() == [] and list(ws.store.objects.glob("*/*")) == []


def test_files_past_the_snapshot_budget_are_unrecorded_and_the_result_says_so(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    ws.index.max_new_bytes = 5
    (ws.root / "a.txt").write_text("0123456789")
    result = ws.call("execute_command", command="echo changed > a.txt")
    assert "1 changed file(s) had no snapshot" in result.output
    ws.end_round(first=True)
    [turn] = pending(ws.store)
    with pytest.raises(UndoRefused, match="was not snapshotted"):
        revert(turn, ws.store)


def test_a_file_tool_writing_outside_the_project_is_kept_too(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    outside = tmp_path / "elsewhere" / "x.txt"
    ws.call("write_file", path=str(outside), content="new")
    ws.end_round(first=True)
    revert(pending(ws.store)[0], ws.store)
    assert not (tmp_path / "elsewhere").exists()


def test_a_rewind_stops_at_a_turn_that_would_overwrite_a_change_and_says_what_it_did(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    ws.call("write_file", path="a.txt", content="1")
    ws.end_round(first=True)
    ws.call("write_file", path="b.txt", content="2")
    ws.end_round(first=True)
    (ws.root / "a.txt").write_text("by hand")
    newest, oldest = pending(ws.store)
    with pytest.raises(UndoRefused, match="1 newer turn"):
        rewind(ws.store, oldest)
    assert not (ws.root / "b.txt").exists() and (ws.root / "a.txt").read_text() == "by hand"


def test_a_damaged_copy_in_the_store_makes_undo_refuse_rather_than_restore_wrong_bytes(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws.root / "a.txt").write_text("precious")
    ws.call("execute_command", command="echo gone > a.txt")
    ws.end_round(first=True)
    [turn] = pending(ws.store)
    before = turn.changes[str(ws.root / "a.txt")].before
    assert before is not None
    ws.store.blob_path(before.blob).write_bytes(b"")
    with pytest.raises(UndoRefused, match="missing from the store or damaged"):
        revert(turn, ws.store)


def test_an_edit_of_a_file_too_large_to_keep_is_said_and_the_file_is_sized_not_hashed(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    ws.recorder.max_file_bytes = ws.index.max_file_bytes = 100
    (ws.root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 40)))

    result = ws.call("edit_file", path="big.txt", old_string="line 7\n", new_string="seven\n")
    ws.end_round(first=True)

    notice = "this change cannot be undone: big.txt is 303 bytes, over the checkpoint limit "
    notice += "(checkpoints.max_file_bytes)"
    assert result.output.endswith(f"\n[Checkpoint: {notice}.]")
    [turn] = pending(ws.store)
    change = turn.changes[str(ws.root / "big.txt")]
    assert (change.before and change.before.kind, change.after and change.after.kind) == ("unrecorded", "unrecorded")
    assert change.after is not None and change.after.reason.startswith("not read: larger than max_file_bytes")
    assert [c.reason for c in conflicts(turn, ws.store)] == [
        "its earlier state was not kept (larger than max_file_bytes (100 bytes))"
    ]


def test_an_edit_of_a_file_under_the_limit_says_nothing_of_undo(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws.root / "small.txt").write_text("line 1\n")

    result = ws.call("edit_file", path="small.txt", old_string="line 1", new_string="one")
    ws.end_round(first=True)

    assert "Checkpoint" not in result.output
    [turn] = pending(ws.store)
    assert conflicts(turn, ws.store) == []
