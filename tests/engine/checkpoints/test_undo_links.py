"""Undo never follows a link: a folder swapped for a link to somewhere else is refused by name, never gone through."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.checkpoints import nofollow
from engine.checkpoints.undo import UndoRefused, pending, revert
from tests.engine.checkpoints.helpers import picture, workspace


def outside_folder(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def swap_for_link(folder: Path, target: Path) -> None:
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()
    folder.symlink_to(target)


def test_a_created_file_whose_folder_became_a_link_is_refused_by_name_and_left_alone_with_force(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    ws.call("write_file", path="src/d/f.txt", content="same bytes")
    ws.end_round(first=True)
    outside = outside_folder(tmp_path, **{"f.txt": "same bytes"})  # what the turn wrote, so only the link differs
    swap_for_link(ws.root / "src" / "d", outside)
    [turn] = pending(ws.store)
    with pytest.raises(UndoRefused) as refused:
        revert(turn, ws.store)
    assert f"{ws.root / 'src' / 'd'} is a symbolic link; undo never follows a link" in str(refused.value)
    report = revert(turn, ws.store, force=True)
    assert (outside / "f.txt").read_text() == "same bytes"
    assert [c.path for c in report.skipped] == [str(ws.root / "src" / "d"), str(ws.root / "src" / "d" / "f.txt")]
    assert (ws.root / "src" / "d").readlink() == outside  # the link made since is not hive's to remove


def test_a_deleted_file_is_never_restored_through_a_folder_that_became_a_link(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws.root / "src" / "d").mkdir(parents=True)
    (ws.root / "src" / "d" / "g.txt").write_text("old")
    ws.call("execute_command", command="rm src/d/g.txt")
    ws.end_round(first=True)
    outside = outside_folder(tmp_path)
    swap_for_link(ws.root / "src" / "d", outside)
    [turn] = pending(ws.store)
    with pytest.raises(UndoRefused, match="is a symbolic link"):
        revert(turn, ws.store)
    revert(turn, ws.store, force=True)
    assert list(outside.iterdir()) == []


def test_a_turn_that_swaps_its_own_folder_for_a_link_is_undone_without_touching_the_target(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    outside = outside_folder(tmp_path, **{"f.txt": "precious"})
    start = picture(ws.root)
    ws.call("write_file", path="src/d/f.txt", content="made")
    ws.call("execute_command", command=f"rm -rf src/d && ln -s {outside} src/d")
    ws.end_round(first=True)
    [turn] = pending(ws.store)
    revert(turn, ws.store)
    assert picture(ws.root) == start
    assert (outside / "f.txt").read_text() == "precious"


def test_the_walk_names_the_first_link_and_acts_on_a_link_itself(tmp_path: Path) -> None:
    target = outside_folder(tmp_path, **{"kept.txt": "x"})
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b").symlink_to(target)
    through = str(tmp_path / "a" / "b" / "kept.txt")
    refusal = nofollow.link_on_path(through)
    assert refusal is not None and refusal.link == str(tmp_path / "a" / "b")
    with pytest.raises(nofollow.LinkOnPath):
        nofollow.put_file(through, b"y", 0o644)
    assert nofollow.remove(str(tmp_path / "a" / "b")) and (target / "kept.txt").read_text() == "x"
    assert nofollow.link_on_path(str(tmp_path / "a" / ".." / "x")) is not None
