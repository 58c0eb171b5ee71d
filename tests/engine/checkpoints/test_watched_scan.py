"""A session's later scans look at what the kernel reported changed, not at every path of the tree."""

from __future__ import annotations

import contextlib
import gc
import os
from pathlib import Path

from engine.checkpoints.undo import pending, revert
from tests.engine.checkpoints.helpers import picture, workspace

LONG_AGO = 1_577_836_800  # 2020-01-01: no file is racily clean


def test_a_change_that_keeps_size_time_and_inode_is_still_recorded_and_undone(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    target = ws.root / "a.txt"
    target.write_text("xxx")
    os.utime(target, (LONG_AGO, LONG_AGO))
    ws.call("execute_command", command="echo warm-up > other.txt")  # the session's first scan, a walk
    ws.end_round(first=True)
    start = picture(ws.root)
    ws.call("execute_command", command="printf yyy > a.txt && touch -d @1577836800 a.txt")
    ws.end_round(first=True)
    assert target.read_text() == "yyy" and os.lstat(target).st_mtime_ns == LONG_AGO * 1_000_000_000
    turn = pending(ws.store)[0]
    assert str(target) in turn.changes  # the stat figures alone would not have told
    revert(turn, ws.store)
    assert picture(ws.root) == start


def test_folders_made_renamed_and_removed_between_and_during_commands_are_all_undone(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws.root / "keep" / "deep").mkdir(parents=True)
    (ws.root / "keep" / "deep" / "f.txt").write_text("f")
    (ws.root / "old").mkdir()
    (ws.root / "old" / "g.txt").write_text("g")
    ws.call("execute_command", command="echo warm-up > other.txt")
    ws.end_round(first=True)
    (ws.root / "by-hand").mkdir()  # between commands, outside hive: the next snapshot keeps it
    (ws.root / "by-hand" / "h.txt").write_text("h")
    start = picture(ws.root)
    ws.call(
        "execute_command",
        command=(
            "mv old renamed && echo changed > renamed/g.txt && mkdir -p made/a/b && echo m > made/a/b/m.txt"
            " && rm -r keep/deep && mv by-hand/h.txt made/ && echo x > by-hand/new.txt"
        ),
    )
    ws.call("execute_command", command="mv made made2 && echo y > made2/a/b/m.txt")
    ws.end_round(first=True)
    revert(pending(ws.store)[0], ws.store)
    assert picture(ws.root) == start


def test_a_folder_replaced_by_another_of_its_name_is_watched_anew(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    for name in ("d", "e"):
        (ws.root / name).mkdir()
        (ws.root / name / "old.txt").write_text(name)
    (ws.root / "f").write_text("a file")
    ws.call("execute_command", command="echo warm-up > other.txt")
    ws.end_round(first=True)
    start = picture(ws.root)
    ws.call("execute_command", command="mv d d.old && mkdir d && rm -r e && mkdir e && rm f && mkdir f")
    ws.call("execute_command", command="echo 1 > d/new.txt && echo 2 > e/new.txt && echo 3 > f/new.txt")
    ws.call("execute_command", command="echo 4 >> d/new.txt && echo 5 > d.old/old.txt")  # each new folder watched
    ws.end_round(first=True)
    turn = pending(ws.store)[0]
    for path in ("d/new.txt", "e/new.txt", "f/new.txt", "d.old/old.txt"):
        assert str(ws.root / path) in turn.changes
    revert(turn, ws.store)
    assert picture(ws.root) == start


def _inotify_instances() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            count += os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify"
    return count


def test_an_index_dropped_without_close_gives_its_inotify_instance_back(tmp_path: Path) -> None:
    before = _inotify_instances()
    for name in ("one", "two", "three"):
        ws = workspace(tmp_path / name)
        ws.call("execute_command", command="echo x > made.txt")  # the first command walks and starts the watch
        assert _inotify_instances() > before
        del ws
        gc.collect()
    # 128 per user by default, shared by every process: a leak would make later sessions walk the tree.
    assert _inotify_instances() == before
