"""A session file with garbage bytes in it resumes from its intact records and says what it skipped.

The real ``hive`` writes the session (a tool round, then a resumed turn), the test puts bytes that are
not UTF-8 into the line of a tool result, and the next ``hive run --resume`` must go on: the request it
sends holds every intact message and no half tool round, and the person is told which line was skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls

GARBAGE = b"\xff\xfe\x80 not utf-8 \xc3"


def args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "-C", str(workdir)]


def session_file(home: Path, session_id: str) -> Path:
    return home / "data" / "sessions" / f"{session_id}.jsonl"


def spoil_line_holding(path: Path, needle: bytes) -> int:
    """Put garbage bytes into the one line that holds ``needle``; its number (counted from 1)."""
    lines = path.read_bytes().split(b"\n")
    [index] = [i for i, line in enumerate(lines) if needle in line]
    lines[index] = lines[index].replace(needle, needle[:3] + GARBAGE + needle[3:])
    path.write_bytes(b"\n".join(lines))
    return index + 1


def sent(server: LLMServer, index: int) -> list[tuple[str, str]]:
    return [(str(m["role"]), str(m.get("content") or "")) for m in server.chat_requests[index].messages[1:]]


def test_garbage_in_a_tool_result_line_costs_that_round_and_the_session_resumes(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    (tmp_path / "notes.txt").write_text("the kiwi is green\n")
    llm_server.script(
        tool_calls(call("read_file", {"path": "notes.txt"}, id="read1")), text("Read it."), text("Second.")
    )
    first = run_hive("run", "read notes.txt", "-o", "json", *args(llm_server, tmp_path))
    assert first.returncode == 0, first.stderr
    sid = str(json.loads(first.stdout)["session_id"])
    again = run_hive("run", "second", "--resume", sid, *args(llm_server, tmp_path))
    assert again.returncode == 0, again.stderr

    line = spoil_line_holding(session_file(isolated_hive, sid), b"the kiwi is green")
    llm_server.script(text("Third."))
    resumed = run_hive("run", "third", "--resume", sid, *args(llm_server, tmp_path))

    assert resumed.returncode == 0, resumed.stderr
    assert f"session {sid}: skipped 1 damaged line (line {line})" in resumed.stderr
    assert (
        "dropped 1 tool round whose call or result was on a damaged line, with 1 intact message of it" in resumed.stderr
    )
    assert sent(llm_server, 3) == [
        ("user", "read notes.txt"),
        ("assistant", "Read it."),
        ("user", "second"),
        ("assistant", "Second."),
        ("user", "third"),
    ]

    llm_server.script(text("Fourth."))
    as_json = run_hive("run", "fourth", "--resume", sid, "-o", "json", *args(llm_server, tmp_path))
    assert as_json.returncode == 0, as_json.stderr
    assert any(f"skipped 1 damaged line (line {line})" in n for n in json.loads(as_json.stdout)["notices"])
    assert sent(llm_server, 4)[-3:] == [("user", "third"), ("assistant", "Third."), ("user", "fourth")]


def test_the_list_survives_damaged_files_and_marks_them(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    llm_server.script(text("one"), text("two"), text("three"))
    ids = []
    for task in ("first task", "second task"):
        done = run_hive("run", task, "-o", "json", *args(llm_server, tmp_path))
        assert done.returncode == 0, done.stderr
        ids.append(str(json.loads(done.stdout)["session_id"]))
    spoil_line_holding(session_file(isolated_hive, ids[0]), b'"role": "assistant"')  # a line in the middle
    headless = session_file(isolated_hive, ids[1])
    headless.write_bytes(GARBAGE + b"\n" + headless.read_bytes().split(b"\n", 1)[1])  # its first line lost

    here = run_hive("sessions", "list", "-C", str(tmp_path))
    assert here.returncode == 0, here.stderr
    assert ids[0] in here.stdout and "first task" in here.stdout
    assert f"session(s) {ids[1]} have a damaged first line" in here.stderr
    everywhere = run_hive("sessions", "list", "--all")
    assert everywhere.returncode == 0, everywhere.stderr
    assert f"{ids[1]}  " in everywhere.stdout and "[damaged: its first line is unreadable]" in everywhere.stdout

    resumed = run_hive("run", "go on", "--resume", ids[1], *args(llm_server, tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    assert "its first line (where and with which model it began) is damaged" in resumed.stderr
    assert sent(llm_server, 2) == [("user", "second task"), ("assistant", "two"), ("user", "go on")]
