"""The sessions index: the latest sessions found from its end, built when missing, compacted, never losing a line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from engine.redaction.scrubber import Scrubber
from engine.session_store import SessionStore
from engine.sessions import index
from engine.sessions.pruning import prune_sessions
from engine.stores.caps import Caps
from tests.support.processes import true_within


def indexed_store(tmp_path: Path) -> SessionStore:
    """An empty sessions folder and its index (built by a first listing)."""
    store = SessionStore(tmp_path / "sessions")
    store.root.mkdir()
    assert store.list(limit=1) == [] and index.index_path(store.root).read_bytes() == b""
    return store


def made(store: SessionStore, cwd: Path, title: str = "a task") -> str:
    """A session of ``cwd`` made as hive makes one (a message, then closed); its id."""
    writer = store.create(cwd=cwd, model="m", scrub=Scrubber(()), title=title)
    writer.append_message({"role": "user", "content": title})
    writer.close()
    return writer.id


def indexed(root: Path) -> list[str]:
    """The ids the index names, in its order (an id once per line)."""
    return [json.loads(line)["id"] for line in index.index_path(root).read_text().splitlines()]


def copied_in(root: Path, cwd: Path, name: str = "20990101-000000-c0c0c0") -> str:
    """A session file put in the folder by hand (the index never heard of it), the newest of all."""
    header = {"type": "session", "cwd": str(cwd), "model": "m", "created": 1.0, "title": "copied"}
    (root / f"{name}.jsonl").write_text(json.dumps(header) + "\n")
    return name


def test_a_missing_index_is_built_by_one_full_listing_then_used(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    here = tmp_path / "here"
    older = [made(store, here) for _ in range(3)]  # no index yet: nothing is appended
    assert not index.index_path(store.root).exists()
    assert store.list(here, limit=20) == store.list(here)  # built from the folder on the way
    assert sorted(indexed(store.root)) == sorted(older)
    newer = made(store, here)
    hand = copied_in(store.root, here)
    assert [info.id for info in store.list(here, limit=20)] == [newer, *older[::-1]]  # only what the index names
    assert [info.id for info in store.list(here)][0] == hand  # the full listing reads the folder


def test_the_latest_are_those_used_last_of_this_folder_and_a_removed_one_is_skipped(tmp_path: Path) -> None:
    store = indexed_store(tmp_path)
    here, there = tmp_path / "here", tmp_path / "there"
    mine = [made(store, here, f"task {n}") for n in range(30)]
    theirs = [made(store, there) for _ in range(100)]  # used after: the index's end is theirs
    first_second = 1_700_000_000
    for offset, session_id in enumerate([*mine, *theirs]):
        os.utime(store.root / f"{session_id}.jsonl", (first_second + offset,) * 2)
    (store.root / f"{mine[-1]}.jsonl").unlink()  # pruned or removed by hand
    listing = store.scan(here, limit=5)
    assert [info.id for info in listing.sessions] == mine[-2:-7:-1] and listing.more
    assert [info.id for info in store.scan(there, limit=200).sessions] == theirs[::-1]
    assert not store.scan(there, limit=200).more


def test_among_the_candidates_the_last_modified_comes_first(tmp_path: Path) -> None:
    store = indexed_store(tmp_path)
    ids = [made(store, tmp_path) for _ in range(4)]
    newest = max((store.root / f"{i}.jsonl").stat().st_mtime for i in ids)
    os.utime(store.root / f"{ids[0]}.jsonl", (newest + 60,) * 2)  # written to last, by a process still running
    assert [info.id for info in store.list(tmp_path, limit=2)] == [ids[0], ids[3]]
    assert store.latest(tmp_path) is not None and store.latest(tmp_path).id == ids[0]  # type: ignore[union-attr]


def test_compaction_keeps_the_newest_line_of_every_live_session_in_order_of_use(tmp_path: Path) -> None:
    store = indexed_store(tmp_path)
    ids = [made(store, tmp_path) for _ in range(4)]
    store.reopen(ids[0], scrub=Scrubber(())).close()  # used again: its newest line is the last
    (store.root / f"{ids[2]}.jsonl").unlink()
    assert len(indexed(store.root)) == 10
    index.compact(store.root)
    assert indexed(store.root) == [ids[1], ids[3], ids[0]]
    assert [info.id for info in store.list(tmp_path, limit=10)] == [ids[0], ids[3], ids[1]]


def test_growing_past_its_size_the_index_compacts_itself(tmp_path: Path) -> None:
    store = indexed_store(tmp_path)
    live = [made(store, tmp_path) for _ in range(2)]
    size, path = 0, index.index_path(store.root)
    for _ in range(index.COMPACT_AT // 20):  # a line is longer than 40 bytes: this passes the first megabyte
        index.record(store.root, "20200101-000000-9009e0", str(tmp_path))  # no such file: dropped
        if path.stat().st_size < size:
            break
        size = path.stat().st_size
    assert size > index.COMPACT_AT - 1000 and path.stat().st_size < 1000
    assert indexed(store.root) == live


def test_pruning_compacts_the_index(tmp_path: Path) -> None:
    store = indexed_store(tmp_path)
    old, recent = made(store, tmp_path), made(store, tmp_path)
    os.utime(store.root / f"{old}.jsonl", (time.time() - 40 * 86_400,) * 2)
    prune_sessions(store.root, Caps(keep_days=30, max_count=100, max_bytes=10**9))
    assert indexed(store.root) == [recent]


def test_a_damaged_index_is_built_again(tmp_path: Path) -> None:
    store = indexed_store(tmp_path)
    ids = [made(store, tmp_path) for _ in range(2)]
    index.index_path(store.root).unlink()
    os.mkfifo(index.index_path(store.root))  # not a file: no append waits on it, no listing trusts it
    later = made(store, tmp_path)
    assert not index.index_path(store.root).exists()  # the append that failed removed it
    assert [info.id for info in store.list(tmp_path, limit=5)] == [later, *ids[::-1]]
    assert sorted(indexed(store.root)) == sorted([*ids, later])


def waiting_for(path: Path) -> bool:
    """Whether a process waits for a ``flock`` on ``path`` (``/proc/locks`` lists the waiters with ``->``)."""
    needle = f":{path.stat().st_ino} "
    return any("->" in line and needle in line for line in Path("/proc/locks").read_text().splitlines())


def test_an_append_waiting_on_a_compaction_lands_in_the_compacted_index(tmp_path: Path) -> None:
    store = indexed_store(tmp_path)
    ids = [made(store, tmp_path) for _ in range(3)]
    appended = made(store, tmp_path)  # its file exists: a compaction keeps its line
    code = f"from pathlib import Path; from engine.sessions.index import record; record(Path({str(store.root)!r}), {appended!r}, 'x')"
    original = index.index_path(store.root)
    with index.held(store.root) as descriptor:
        assert descriptor is not None
        appender = subprocess.Popen([sys.executable, "-c", code], cwd=Path(__file__).parents[2])
        assert true_within(lambda: waiting_for(original), 30), "the appender never waited for the lock"
        index.compact_held(store.root)  # the file it opened is replaced while it waits
    assert appender.wait(timeout=60) == 0
    lines = [json.loads(line) for line in index.index_path(store.root).read_text().splitlines()]
    assert [line["id"] for line in lines] == [*ids, appended, appended] and lines[-1]["cwd"] == "x"
