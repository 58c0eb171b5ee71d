"""A `hive undo` killed half-way is finished by the next one; a damaged checkpoint record is named, never skipped.

The kill lands mid-restore by order of events: the test hook HIVE_TEST_PAUSE_UNDO_AFTER=N stops the
undo after its N-th step and says so on stderr; the test then SIGKILLs it.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.engine.checkpoints.helpers import picture
from tests.hive_cli.test_undo_e2e import one_turn
from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import LLMServer

FILES = 7
CHANGE_ALL = (
    "rm gone.txt && chmod 700 sub && "
    + " && ".join(f"echo changed > f{i}.txt" for i in range(FILES))
    + " && mkdir -p made/deep && echo new > made/deep/n.txt"
)


def killed_mid_undo(project: Path, after_steps: int, *args: str) -> str:
    """Start `hive undo --yes ARGS`, wait until the test hook has paused it after ``after_steps`` steps, SIGKILL it."""
    env = hive_env(HIVE_TEST_PAUSE_UNDO_AFTER=str(after_steps))
    command = [sys.executable, "-m", "hive_cli", "undo", "--yes", *args, "-C", str(project)]
    with subprocess.Popen(command, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL) as undo:
        assert undo.stderr is not None
        said = b""
        deadline = time.monotonic() + 60  # a failure guard only
        # Raw reads of the descriptor: a buffered readline could take the pause line into its buffer along
        # with the one before it, and select would then wait on an empty pipe for a line already read.
        try:
            while b"undo paused" not in said and time.monotonic() < deadline:
                ready, _, _ = select.select([undo.stderr.fileno()], [], [], 1)
                chunk = os.read(undo.stderr.fileno(), 65536) if ready else b""
                if ready and not chunk:
                    break  # the undo ended without pausing
                said += chunk
            assert b"undo paused" in said, said.decode(errors="replace")
        finally:
            os.kill(undo.pid, signal.SIGKILL)  # also when the test fails: a paused undo never ends by itself
            undo.wait()
    assert undo.returncode == -signal.SIGKILL
    return said.decode(errors="replace")


def project_with_a_turn(llm_server: LLMServer, tmp_path: Path) -> tuple[Path, dict[str, tuple[str, int, bytes]]]:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "sub" / "keep.txt").write_text("kept\n")
    (project / "gone.txt").write_text("will go\n")
    for i in range(FILES):
        (project / f"f{i}.txt").write_text(f"original {i}\n")
    start = picture(project)
    one_turn(llm_server, project, ("execute_command", {"command": CHANGE_ALL}))
    return project, start


@pytest.mark.parametrize("after_steps", [2, 6, 11])
def test_a_killed_undo_is_finished_by_the_next_plain_undo(
    llm_server: LLMServer, tmp_path: Path, after_steps: int
) -> None:
    project, start = project_with_a_turn(llm_server, tmp_path)
    changed = picture(project)
    killed_mid_undo(project, after_steps)
    half = picture(project)
    assert half not in (start, changed)  # the kill landed mid-restore

    finished = run_hive("undo", "--yes", "-C", str(project))
    assert finished.returncode == 0, finished.stderr
    assert f"interrupted at {after_steps} of" in finished.stderr
    assert "The interrupted undo is finished; nothing else was undone." in finished.stderr
    assert picture(project) == start
    nothing = run_hive("undo", "--yes", "-C", str(project))
    assert nothing.returncode == 0 and "Nothing to undo" in nothing.stderr


def test_a_killed_rewind_is_finished_through_every_turn_it_was_to_undo(llm_server: LLMServer, tmp_path: Path) -> None:
    project, start = project_with_a_turn(llm_server, tmp_path)
    one_turn(llm_server, project, ("write_file", {"path": "later.txt", "content": "later"}))
    killed_mid_undo(project, 1, "--to", "2")  # the newest turn's one step done, the older turn not begun
    assert not (project / "later.txt").exists() and picture(project) != start
    finished = run_hive("undo", "--yes", "-C", str(project))
    assert finished.returncode == 0, finished.stderr
    assert "interrupted at 1 of 1 steps, then 1 more turn(s)" in finished.stderr
    assert picture(project) == start


def test_finishing_refuses_over_a_file_changed_since_the_kill_and_force_finishes(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project, start = project_with_a_turn(llm_server, tmp_path)
    killed_mid_undo(project, 2)
    (project / "f6.txt").write_text("mine now\n")  # not yet put back when the undo was killed
    refused = run_hive("undo", "--yes", "-C", str(project))
    assert refused.returncode == 1
    assert "f6.txt: changed after hive touched it" in refused.stderr
    forced = run_hive("undo", "--yes", "--force", "-C", str(project))
    assert forced.returncode == 0, forced.stderr
    assert (project / "f6.txt").read_text() == "mine now\n"
    assert {k: v for k, v in picture(project).items() if k != "f6.txt"} == {
        k: v for k, v in start.items() if k != "f6.txt"
    }


def manifest_files() -> list[Path]:
    return sorted(Path(os.environ["HIVE_HOME"]).rglob("checkpoints/*/turns/*.json"))


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (b'{"id": "x", "files": \xff\xfe}', "not UTF-8 text"),
        (b'{"id": "x", "files": {', "not valid JSON"),
        (b'{"id": "x", "created": 1, "cwd": "/", "files": []}', "not a checkpoint record"),
    ],
)
def test_a_damaged_record_is_listed_and_undo_refuses_naming_it(
    llm_server: LLMServer, tmp_path: Path, damage: bytes, problem: str
) -> None:
    one_turn(llm_server, tmp_path, ("write_file", {"path": "a.txt", "content": "1"}))
    one_turn(llm_server, tmp_path, ("write_file", {"path": "a.txt", "content": "2"}))
    older, newer = manifest_files()
    newer.write_bytes(damage)

    listed = run_hive("checkpoints", "list", "-C", str(tmp_path))
    assert listed.returncode == 0
    first, second = listed.stdout.splitlines()
    assert newer.name in first and f"damaged: {problem}" in first
    assert "(behind a damaged record)" in second

    for args in ([], ["--to", "2"], ["--to", older.stem]):
        refused = run_hive("undo", "--yes", *args, "-C", str(tmp_path))
        assert refused.returncode == 1, refused.stderr
        assert f"checkpoint record {newer} is damaged ({problem}" in refused.stderr
        assert "Delete that file" in refused.stderr
        assert (tmp_path / "a.txt").read_text() == "2"

    newer.unlink()  # what the refusal says to do
    assert run_hive("undo", "--yes", "-C", str(tmp_path)).returncode == 1  # a.txt is not as the older turn left it
    assert (tmp_path / "a.txt").read_text() == "2"


def test_an_older_damaged_record_stops_undo_only_when_it_is_reached(llm_server: LLMServer, tmp_path: Path) -> None:
    one_turn(llm_server, tmp_path, ("write_file", {"path": "a.txt", "content": "1"}))
    one_turn(llm_server, tmp_path, ("write_file", {"path": "b.txt", "content": "2"}))
    older, _ = manifest_files()
    older.write_bytes(b"\x00garbage")
    assert run_hive("undo", "--yes", "-C", str(tmp_path)).returncode == 0
    assert not (tmp_path / "b.txt").exists()
    refused = run_hive("undo", "--yes", "-C", str(tmp_path))
    assert refused.returncode == 1 and str(older) in refused.stderr
    assert "Nothing to undo" not in refused.stderr and (tmp_path / "a.txt").exists()


def test_a_record_whose_kept_copy_is_missing_is_listed_as_damaged_and_undo_refuses(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("before")
    one_turn(llm_server, tmp_path, ("write_file", {"path": "a.txt", "content": "after"}))
    [blob] = [p for p in Path(os.environ["HIVE_HOME"]).rglob("objects/*/*") if p.read_bytes() == b"before"]
    blob.unlink()
    listed = run_hive("checkpoints", "list", "-C", str(tmp_path))
    assert "damaged: the kept copy of a.txt is missing" in listed.stdout
    refused = run_hive("undo", "--yes", "-C", str(tmp_path))
    assert refused.returncode == 1 and "a.txt: its kept copy is missing" in refused.stderr
    assert (tmp_path / "a.txt").read_text() == "after"
