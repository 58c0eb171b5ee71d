"""A disk that fills where hive writes: one message naming the folder and what was kept, never an internal error.

Each test mounts a small tmpfs (tests.support.small_disk; the suite runs as root in CI) and skips, saying why,
where it cannot.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.paths import user_data_dir
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.small_disk import fill, leave_room


def model_args(server: LLMServer, project: Path) -> list[str]:
    return ["--yes", "--model", "openai/test-model", "--api-base", server.base_url, "-C", str(project)]


def test_a_full_hive_home_is_one_message_naming_the_sessions_folder(
    llm_server: LLMServer, tmp_path: Path, small_disk: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    llm_server.script(text("Done."))
    fill(small_disk)
    result = run_hive("run", "hello", *model_args(llm_server, project), HIVE_HOME=str(small_disk))

    assert result.returncode == 1, result.stderr
    sessions = user_data_dir_under(small_disk) / "sessions"
    assert f"hive: no space left on device writing the session file in {sessions};" in result.stderr
    assert "internal error" not in result.stderr
    assert "Traceback" not in result.stderr
    assert not list(sessions.glob("*.jsonl")), "a session file with no header was left behind"


def test_a_record_that_finds_no_room_is_cut_back_to_the_last_full_line(
    llm_server: LLMServer, tmp_path: Path, small_disk: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    llm_server.script(text("First answer."), text("Not reached."))
    first = run_hive("run", "start", "-o", "json", *model_args(llm_server, project), HIVE_HOME=str(small_disk))
    assert first.returncode == 0, first.stderr
    session_id = str(json.loads(first.stdout)["session_id"])
    fill(small_disk)
    leave_room(small_disk, 32 * 1024)  # room for the lock and the "resumed" record, not for the long prompt
    prompt = "a long prompt " * 7_000  # 98 kB: one argument may hold 128 kB
    result = run_hive(
        "run", prompt, "--resume", session_id, *model_args(llm_server, project), HIVE_HOME=str(small_disk)
    )

    sessions = user_data_dir_under(small_disk) / "sessions"
    assert result.returncode == 1, result.stderr
    message = (
        f"hive: no space left on device writing the session file in {sessions}; the session up to the last turn is kept"
    )
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    data = (sessions / f"{session_id}.jsonl").read_bytes()
    assert data.endswith(b"\n"), "a partial line was left at the end of the session file"
    records = [json.loads(line) for line in data.splitlines()]
    assert [r["type"] for r in records][-1] == "resumed"
    assert b"a long prompt" not in data
    assert len(llm_server.chat_requests) == 1, "the prompt that could not be saved was sent"


def user_data_dir_under(home: Path) -> Path:
    previous = os.environ.get("HIVE_HOME")
    os.environ["HIVE_HOME"] = str(home)
    try:
        return user_data_dir()
    finally:
        if previous is not None:
            os.environ["HIVE_HOME"] = previous


def test_a_full_disk_under_the_project_is_a_tool_error_the_model_sees(
    llm_server: LLMServer, tmp_path: Path, small_disk: Path
) -> None:
    (small_disk / "kept.txt").write_text("as it was\n")
    fill(small_disk)
    llm_server.script(
        tool_calls(call("write_file", {"path": "kept.txt", "content": "new content " * 2000})), text("Noted: no room.")
    )
    result = run_hive("run", "rewrite kept.txt", *model_args(llm_server, small_disk))

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    answer = [m for m in llm_server.chat_requests[1].messages if m.get("role") == "tool"]
    assert answer and "No space left on device" in str(answer[-1]["content"])
    assert (small_disk / "kept.txt").read_text() == "as it was\n"
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "kept.txt"], "a temporary file was left"


def test_a_checkpoint_that_finds_no_room_changes_nothing_and_the_model_is_told_so(
    llm_server: LLMServer, tmp_path: Path, small_disk: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    big = "a line of the big file\n" * 40_000  # about 900 KB: its checkpoint copy cannot fit in what is left
    (project / "big.txt").write_text(big)
    fill(small_disk)
    with (small_disk / "filler").open("r+b") as filler:  # leave room for the session, not for the copy
        filler.truncate(max(0, filler.seek(0, os.SEEK_END) - 128 * 1024))
    llm_server.script(
        tool_calls(
            call("edit_file", {"path": "big.txt", "old_string": "a line of the big file\n" * 2, "new_string": ""})
        ),
        text("Noted: nothing changed."),
    )
    result = run_hive("run", "shorten big.txt", *model_args(llm_server, project), HIVE_HOME=str(small_disk))

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    told = str([m for m in llm_server.chat_requests[1].messages if m.get("role") == "tool"][-1]["content"])
    assert "no space left on device writing a checkpoint copy in" in told
    assert str(user_data_dir_under(small_disk) / "checkpoints") in told
    assert "nothing was changed" in told
    assert (project / "big.txt").read_text() == big
