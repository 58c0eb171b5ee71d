"""The sessions folder pruned by age, count and size, once a day, never a session in use: real files, real locks."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from engine.paths import user_data_dir
from engine.session_lock import hold, lock_file, release
from engine.sessions.pruning import prune_sessions, prune_sessions_daily
from engine.stores.caps import Caps
from engine.stores.options import StoresOptions
from engine.stores.stamp import stamp_path

DAY = 86_400
NOW = time.time()
WIDE = Caps(keep_days=365, max_count=1000, max_bytes=10**9)


def session(root: Path, name: str, *, days_old: float, size: int = 100) -> Path:
    """A session file of ``size`` bytes last written ``days_old`` days before NOW."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{name}.jsonl"
    path.write_bytes(b'{"type":"session"}\n'.ljust(size, b" "))
    moment = NOW - days_old * DAY
    os.utime(path, (moment, moment))
    return path


def left(root: Path) -> list[str]:
    return sorted(path.stem for path in root.glob("*.jsonl"))


def test_sessions_older_than_the_age_cap_are_removed(tmp_path: Path) -> None:
    old, recent = session(tmp_path, "20240101-000000-aaaaaa", days_old=40), session(tmp_path, "x-recent", days_old=5)
    verdict = prune_sessions(tmp_path, Caps(keep_days=30, max_count=1000, max_bytes=10**9), now=NOW)
    assert left(tmp_path) == [recent.stem]
    assert [entry.name for entry in verdict.removed] == [old.stem]


def test_beyond_the_count_cap_the_least_recently_used_go(tmp_path: Path) -> None:
    for number in range(5):
        session(tmp_path, f"s{number}", days_old=10 - number)  # s0 the oldest
    prune_sessions(tmp_path, Caps(keep_days=365, max_count=2, max_bytes=10**9), now=NOW)
    assert left(tmp_path) == ["s3", "s4"]


def test_beyond_the_size_cap_the_oldest_go_until_the_rest_fits(tmp_path: Path) -> None:
    for number in range(4):
        session(tmp_path, f"s{number}", days_old=10 - number, size=1000)
    verdict = prune_sessions(tmp_path, Caps(keep_days=365, max_count=1000, max_bytes=2500), now=NOW)
    assert left(tmp_path) == ["s2", "s3"]
    assert verdict.freed == 2000


def test_a_session_held_by_another_process_is_never_removed(tmp_path: Path) -> None:
    held = session(tmp_path, "held", days_old=400)
    session(tmp_path, "idle", days_old=400)
    script = (
        "import fcntl, os, sys\n"
        f"fd = os.open({str(lock_file(held))!r}, os.O_RDWR | os.O_CREAT, 0o600)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('locked', flush=True)\nsys.stdin.read()\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        verdict = prune_sessions(tmp_path, WIDE, now=NOW)
    finally:
        holder.communicate("")
    assert left(tmp_path) == ["held"]
    assert [entry.name for entry in verdict.protected] == ["held"]


def test_the_session_this_process_holds_and_the_one_resumed_are_kept(tmp_path: Path) -> None:
    mine = session(tmp_path, "mine", days_old=400)
    session(tmp_path, "resumed", days_old=400)
    session(tmp_path, "other", days_old=400)
    hold(mine)
    try:
        prune_sessions(tmp_path, WIDE, keep={"resumed"}, now=NOW)
    finally:
        release(mine)
    assert left(tmp_path) == ["mine", "resumed"]


def test_a_dry_run_says_what_would_go_and_removes_nothing(tmp_path: Path) -> None:
    session(tmp_path, "old", days_old=400)
    verdict = prune_sessions(tmp_path, WIDE, dry_run=True, now=NOW)
    assert [entry.name for entry in verdict.removed] == ["old"] and left(tmp_path) == ["old"]


def test_pruning_at_a_start_runs_at_most_once_a_day() -> None:
    root = user_data_dir() / "sessions"
    tight = StoresOptions(sessions_keep_days=30)
    session(root, "first-old", days_old=40)
    assert prune_sessions_daily(root, tight) is not None
    assert left(root) == []
    session(root, "second-old", days_old=40)
    assert prune_sessions_daily(root, tight) is None  # the same day: nothing is looked at
    assert left(root) == ["second-old"]
    yesterday = time.time() - DAY - 60
    os.utime(stamp_path("sessions"), (yesterday, yesterday))
    prune_sessions_daily(root, tight)
    assert left(root) == []
