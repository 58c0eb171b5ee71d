"""Saved sessions from the command line: continue one non-interactively, and survive a damaged file."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.session_store import SessionStore
from engine.sessions.copies import default_scrub
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text


def args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "-C", str(workdir)]


def session_id(stdout: str) -> str:
    return str(json.loads(stdout)["session_id"])


def test_hive_run_continue_and_resume_carry_the_conversation_on(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("First."), text("Second."), text("Third."))
    first = run_hive("run", "remember the word kiwi", "-o", "json", *args(llm_server, tmp_path))
    assert first.returncode == 0, first.stderr
    sid = session_id(first.stdout)

    again = run_hive("run", "what was the word?", "--continue", "-o", "json", *args(llm_server, tmp_path))
    assert again.returncode == 0, again.stderr
    assert session_id(again.stdout) == sid
    assert [m["content"] for m in llm_server.chat_requests[1].messages[1:]] == [
        "remember the word kiwi",
        "First.",
        "what was the word?",
    ]
    piped = run_hive("--resume", sid, *args(llm_server, tmp_path), stdin="and now?\n")
    assert piped.returncode == 0, piped.stderr
    assert [m["content"] for m in llm_server.chat_requests[2].messages[1:]][-1] == "and now?"
    assert len(llm_server.chat_requests[2].messages) == 6


def test_continuing_what_does_not_exist_is_a_usage_error(llm_server: LLMServer, tmp_path: Path) -> None:
    bogus = run_hive("run", "go on", "--resume", "20990101-000000-nope00", *args(llm_server, tmp_path))
    assert bogus.returncode == 2 and "no session '20990101-000000-nope00'" in bogus.stderr
    piped = run_hive("--resume", "nope", *args(llm_server, tmp_path), stdin="go on\n")
    assert piped.returncode == 2
    nothing = run_hive("run", "go on", "--continue", *args(llm_server, tmp_path))
    assert nothing.returncode == 2 and "no saved session" in nothing.stderr
    assert llm_server.chat_requests == []


def test_a_damaged_session_file_does_not_break_the_list(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    llm_server.script(text("ok"))
    assert run_hive("run", "hello", *args(llm_server, tmp_path)).returncode == 0
    sessions = isolated_hive / "data" / "sessions"
    (sessions / "20200101-000000-bad000.jsonl").write_text('{"type": "session", "created": "yesterday"}\n')
    listed = run_hive("sessions", "list", "--all")
    assert listed.returncode == 0, listed.stderr
    assert "hello" in listed.stdout and "skipped 1 unreadable session file" in listed.stderr


def make_sessions(root: Path, cwd: Path, count: int, first_second: int) -> list[str]:
    """``count`` saved sessions of ``cwd``, each written (as hive writes them) and dated a second after the last."""
    store = SessionStore(root)
    made = []
    for number in range(count):
        writer = store.create(cwd=cwd, model="openai/test-model", scrub=default_scrub(), title=f"task {number}")
        writer.append_message({"role": "user", "content": f"task {number}"})
        writer.close()
        os.utime(writer.path, (first_second + number, first_second + number))
        made.append(writer.path.stem)
    return made


def test_the_list_shows_the_latest_twenty_unless_asked_and_continue_takes_the_newest(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    root = isolated_hive / "data" / "sessions"
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    mine = make_sessions(root, here, 25, first_second=1_700_000_000)
    make_sessions(root, elsewhere, 10, first_second=1_800_000_000)  # newer, of another directory
    llm_server.script(text("Going on."))

    default = run_hive("sessions", "list", "-C", str(here))
    everything = run_hive("sessions", "list", "--limit", "0", "-C", str(here))
    three = run_hive("sessions", "list", "--limit", "3", "--all")
    continued = run_hive("run", "go on", "--continue", "-o", "json", *args(llm_server, here))

    shown = [line.split()[0] for line in default.stdout.splitlines()]
    assert shown == mine[::-1][:20] and "the latest 20 shown" in default.stderr
    assert len(everything.stdout.splitlines()) == 25 and "shown" not in everything.stderr
    assert [line.split()[-1] for line in three.stdout.splitlines()] == [str(elsewhere)] * 3
    assert continued.returncode == 0, continued.stderr
    assert session_id(continued.stdout) == mine[-1]
