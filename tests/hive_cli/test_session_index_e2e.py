"""The real ``hive`` lists the latest sessions and continues the newest through the sessions index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from engine.session_store import SessionStore
from engine.sessions.copies import default_scrub
from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import LLMServer, text


def args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "-C", str(workdir)]


def make_sessions(root: Path, cwd: Path, count: int, first_second: int) -> list[str]:
    """``count`` sessions of ``cwd`` written as hive writes them, each dated a second after the last."""
    store = SessionStore(root)
    made = []
    for number in range(count):
        writer = store.create(cwd=cwd, model="openai/test-model", scrub=default_scrub(), title=f"task {number}")
        writer.append_message({"role": "user", "content": f"task {number}"})
        writer.close()
        os.utime(writer.path, (first_second + number, first_second + number))
        made.append(writer.id)
    return made


def indexed(root: Path) -> list[str]:
    return [json.loads(line)["id"] for line in (root / "_index.log").read_text().splitlines()]


def shown(listed: subprocess.CompletedProcess[str]) -> list[str]:
    assert listed.returncode == 0, listed.stderr
    return [line.split()[0] for line in listed.stdout.splitlines()]


def test_the_list_and_continue_read_the_index_and_a_missing_index_is_built_again(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    root = isolated_hive / "data" / "sessions"
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    for folder in (root, here, elsewhere):
        folder.mkdir(parents=True)
    first = run_hive("sessions", "list", "-C", str(here))
    assert "No sessions yet" in first.stderr and (root / "_index.log").read_bytes() == b""  # built, empty
    day_ago = int(time.time()) - 86_400  # within the age cap: a run's daily pruning keeps them
    mine = make_sessions(root, here, 30, first_second=day_ago)
    make_sessions(root, elsewhere, 200, first_second=day_ago + 1000)  # newer, of another directory
    hand = root / "20990101-000000-c0c0c0.jsonl"  # copied in by hand: the newest file, unknown to the index
    hand.write_text(json.dumps({"type": "session", "cwd": str(here), "model": "m", "created": 1.0}) + "\n")
    os.utime(hand, (day_ago + 5000, day_ago + 5000))
    (root / f"{mine[-1]}.jsonl").unlink()  # an indexed session removed

    assert shown(run_hive("sessions", "list", "-C", str(here))) == mine[-2::-1][:20]
    everything = shown(run_hive("sessions", "list", "--limit", "0", "-C", str(here)))
    assert everything == [hand.stem, *mine[-2::-1]]  # the full listing reads the folder
    llm_server.script(text("Going on."))
    continued = run_hive("run", "go on", "--continue", "-o", "json", *args(llm_server, here))
    assert continued.returncode == 0, continued.stderr
    assert json.loads(continued.stdout)["session_id"] == mine[-2]

    (root / "_index.log").unlink()
    rebuilt = shown(run_hive("sessions", "list", "--limit", "3", "-C", str(here)))
    assert rebuilt == [mine[-2], hand.stem, mine[-3]]  # one full scan built it again: the copy is in it now
    assert hand.stem in indexed(root) and mine[-1] not in indexed(root)


def test_two_runs_at_once_are_both_in_the_index(llm_server: LLMServer, tmp_path: Path, isolated_hive: Path) -> None:
    (isolated_hive / "data" / "sessions").mkdir(parents=True)
    assert run_hive("sessions", "list", "-C", str(tmp_path)).returncode == 0  # the index, empty
    llm_server.script(text("One."), text("Two."))
    command = [sys.executable, "-m", "hive_cli", "run", "-o", "json", *args(llm_server, tmp_path)]
    runs = [
        subprocess.Popen(
            [*command, f"task {n}"], env=hive_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for n in range(2)
    ]
    outputs = [run.communicate(timeout=90) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err for _, err in outputs]
    ids = {json.loads(out)["session_id"] for out, _ in outputs}
    lines = indexed(isolated_hive / "data" / "sessions")
    assert len(ids) == 2 and sorted(lines) == sorted([*ids, *ids])  # each made, then closed
    assert set(shown(run_hive("sessions", "list", "-C", str(tmp_path)))) == ids
