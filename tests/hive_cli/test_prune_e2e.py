"""The real ``hive``: a run's start prunes the stores once a day; ``hive sessions prune`` and ``hive checkpoints prune``."""

from __future__ import annotations

import os
import time
from pathlib import Path

from engine.checkpoints.store import Change, CheckpointStore, FileState, Manifest
from engine.paths import user_data_dir
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text

DAY = 86_400


def old_session(name: str, *, days_old: float = 400) -> Path:
    root = user_data_dir() / "sessions"
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{name}.jsonl"
    path.write_text('{"type": "session", "id": "x", "cwd": "/elsewhere", "model": "m", "created": 1}\n')
    moment = time.time() - days_old * DAY
    os.utime(path, (moment, moment))
    return path


def old_output(project: Path, name: str) -> Path:
    folder = project / ".hive" / "outputs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"command-{name}.log"
    path.write_text("output\n")
    moment = time.time() - 400 * DAY
    os.utime(path, (moment, moment))
    return path


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def test_a_run_prunes_the_stores_and_a_second_start_the_same_day_prunes_nothing(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()
    first_session, first_output = old_session("20240101-000000-aaaaaa"), old_output(tmp_path, "first")
    llm_server.script(text("done"))
    done = run_hive("run", "hello", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    assert not first_session.exists() and not first_output.exists()

    second_session, second_output = old_session("20240102-000000-bbbbbb"), old_output(tmp_path, "second")
    llm_server.script(text("done again"))
    again = run_hive("run", "hello", *model_args(llm_server, tmp_path))
    assert again.returncode == 0, again.stderr
    assert second_session.exists() and second_output.exists()  # pruned at most once a day
    assert len(list((user_data_dir() / "sessions").glob("*.jsonl"))) == 3  # the two runs' sessions are kept


def test_sessions_prune_dry_run_lists_and_removes_nothing_then_prune_removes(tmp_path: Path) -> None:
    old = old_session("20240101-000000-aaaaaa")
    recent = old_session("20260101-000000-cccccc", days_old=3)
    dry = run_hive("sessions", "prune", "--dry-run", "-C", str(tmp_path))
    assert dry.returncode == 0, dry.stderr
    assert "Would remove 1 session" in dry.stdout and old.stem in dry.stdout and recent.stem not in dry.stdout
    assert old.exists()

    done = run_hive("sessions", "prune", "-C", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "Removed 1 session" in done.stdout and "Kept 1 session" in done.stdout
    assert not old.exists() and recent.exists()


def test_sessions_prune_follows_the_users_caps(tmp_path: Path) -> None:
    settings = Path(os.environ["HIVE_HOME"]) / "config" / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("stores:\n  sessions_max_count: 1\n")
    older, newer = old_session("s-older", days_old=5), old_session("s-newer", days_old=4)
    done = run_hive("sessions", "prune", "-C", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert not older.exists() and newer.exists()


def test_checkpoints_prune_removes_old_turns_and_their_copies(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    store = CheckpointStore.for_project(tmp_path)
    made = time.time() - 40 * DAY
    digest = store.put_bytes(b"before")
    os.utime(store.blob_path(digest), (made, made))
    before = FileState(kind="file", blob=digest, mode=0o644)
    manifest = Manifest(id=f"{int(made * 1e9):020d}-abcdef", created=made, cwd=str(tmp_path))
    manifest.changes[str(tmp_path / "a")] = Change(before, None)
    store.save(manifest)

    dry = run_hive("checkpoints", "prune", "--dry-run", "-C", str(tmp_path))
    assert dry.returncode == 0, dry.stderr
    assert "Would remove 1 turn" in dry.stdout and manifest.id in dry.stdout
    assert store.manifests() != []

    done = run_hive("checkpoints", "prune", "-C", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "Removed 1 turn" in done.stdout and "Removed 1 kept copy" in done.stdout
    assert store.manifests() == [] and not store.blob_path(digest).exists()


def test_checkpoints_list_reads_the_newest_twenty_unless_asked_for_all(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    store = CheckpointStore.for_project(tmp_path)
    start = time.time() - 3 * DAY
    (store.turns / f"{int((start - 60) * 1e9):020d}-0ldest.json").mkdir(parents=True)  # unreadable: damaged if read
    for number in range(25):
        made = start + number
        before = FileState(kind="file", blob=store.put_bytes(b"%d" % number), mode=0o644)
        manifest = Manifest(id=f"{int(made * 1e9):020d}-t{number:05d}", created=made, cwd=str(tmp_path))
        manifest.changes[str(tmp_path / "a")] = Change(before, None)
        store.save(manifest)

    shown = run_hive("checkpoints", "list", "-C", str(tmp_path))
    assert shown.returncode == 0, shown.stderr
    rows = shown.stdout.splitlines()
    assert [row.split()[1][-6:] for row in rows[:20]] == [f"t{n:05d}" for n in range(24, 4, -1)]
    assert rows[0].split()[0] == "1" and rows[19].split()[0] == "20"
    assert rows[20] == "  ... 6 older record(s): --all or --limit N shows them" and "damaged" not in shown.stdout

    everything = run_hive("checkpoints", "list", "--all", "-C", str(tmp_path))
    assert "0ldest.json  damaged" in everything.stdout and len(everything.stdout.splitlines()) == 26
