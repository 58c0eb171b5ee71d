"""A project's ``.hive/outputs/`` pruned by age, count and size, once a day, never through a link."""

from __future__ import annotations

import os
import time
from pathlib import Path

from engine.checkpoints.store import project_key
from engine.stores.caps import Caps
from engine.stores.options import StoresOptions
from engine.stores.outputs import prune_outputs, prune_outputs_daily
from engine.stores.stamp import stamp_path

DAY = 86_400
NOW = time.time()
WIDE = 10**12


def saved(project: Path, name: str, *, days_old: float, size: int = 100) -> Path:
    folder = project / ".hive" / "outputs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"command-{name}.log"
    path.write_bytes(b"x" * size)
    moment = NOW - days_old * DAY
    os.utime(path, (moment, moment))
    return path


def left(project: Path) -> list[str]:
    return sorted(path.stem.removeprefix("command-") for path in (project / ".hive" / "outputs").glob("*.log"))


def test_outputs_over_each_cap_go_the_oldest_first(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    for number in range(6):
        saved(tmp_path, f"o{number}", days_old=50 - 10 * number, size=1000)  # o0: 50 days old ... o5: today
    prune_outputs(tmp_path, Caps(keep_days=35, max_count=WIDE, max_bytes=WIDE), now=NOW)
    assert left(tmp_path) == ["o2", "o3", "o4", "o5"]
    prune_outputs(tmp_path, Caps(keep_days=35, max_count=3, max_bytes=WIDE), now=NOW)
    assert left(tmp_path) == ["o3", "o4", "o5"]
    prune_outputs(tmp_path, Caps(keep_days=35, max_count=3, max_bytes=1500), now=NOW)
    assert left(tmp_path) == ["o5"]


def test_a_linked_scratch_folder_is_not_followed(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / ".git").mkdir(parents=True)
    saved(elsewhere, "precious", days_old=400)
    (project / ".hive").symlink_to(elsewhere / ".hive")
    verdict = prune_outputs(project, Caps(keep_days=1, max_count=1, max_bytes=1), now=NOW)
    assert verdict.removed == () and left(elsewhere) == ["precious"]


def test_outputs_are_pruned_at_most_once_a_day(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    options = StoresOptions(outputs_keep_days=30)
    saved(tmp_path, "first", days_old=40)
    assert prune_outputs_daily(tmp_path, options) is not None and left(tmp_path) == []
    saved(tmp_path, "second", days_old=40)
    assert prune_outputs_daily(tmp_path, options) is None and left(tmp_path) == ["second"]
    yesterday = time.time() - DAY - 60
    os.utime(stamp_path(f"outputs-{project_key(tmp_path)}"), (yesterday, yesterday))
    prune_outputs_daily(tmp_path, options)
    assert left(tmp_path) == []


def test_outputs_kept_in_hives_data_folder_for_a_linked_project_folder_are_pruned_too(tmp_path: Path) -> None:
    from engine.scratch import open_scratch_file

    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / ".git").mkdir(parents=True)
    (elsewhere / ".hive").mkdir(parents=True)
    (project / ".hive").symlink_to(elsewhere / ".hive")
    opened = open_scratch_file(project / ".hive" / "outputs", "command-old.log")  # .hive is a link: saved in hive's
    opened.handle.write(b"x" * 100)
    opened.handle.close()
    assert opened.moved and not opened.path.is_relative_to(project)
    month_ago = NOW - 40 * DAY
    os.utime(opened.path, (month_ago, month_ago))

    verdict = prune_outputs(project, Caps(keep_days=30, max_count=WIDE, max_bytes=WIDE), now=NOW)

    assert [entry.name for entry in verdict.removed] == ["command-old.log"] and not opened.path.exists()
