"""Sessions from the command line: hive run --fork, hive sessions search, export and import (the real program)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect

from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import LLMServer, text


def args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "-C", str(workdir)]


def started(server: LLMServer, workdir: Path, task: str) -> str:
    """The id of a session ``hive run TASK`` saved."""
    run = run_hive("run", task, "-o", "json", *args(server, workdir))
    assert run.returncode == 0, run.stderr
    return str(json.loads(run.stdout)["session_id"])


def test_run_fork_continues_a_copy_and_leaves_the_original_as_it_was(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    llm_server.script(text("Noted."), text("It was kiwi."))
    parent = started(llm_server, tmp_path, "remember the word kiwi")
    parent_file = isolated_hive / "data" / "sessions" / f"{parent}.jsonl"
    before = parent_file.read_bytes()

    forked = run_hive("run", "what was the word?", "--fork", parent, "-o", "json", *args(llm_server, tmp_path))
    assert forked.returncode == 0, forked.stderr
    child = json.loads(forked.stdout)["session_id"]
    assert child != parent
    assert [m["content"] for m in llm_server.chat_requests[1].messages[1:]] == [
        "remember the word kiwi",
        "Noted.",
        "what was the word?",
    ]
    assert parent_file.read_bytes() == before
    listed = run_hive("sessions", "list", "-C", str(tmp_path))
    assert f"{child}  " in listed.stdout and f"(fork of {parent})" in listed.stdout


def test_fork_of_nothing_or_refused_before_the_run_leaves_no_session(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    llm_server.script(text("Noted."))
    parent = started(llm_server, tmp_path, "hello")
    sessions = isolated_hive / "data" / "sessions"
    missing = run_hive("run", "go", "--fork", "20990101-000000-nope00", *args(llm_server, tmp_path))
    assert missing.returncode == 2 and "no session '20990101-000000-nope00'" in missing.stderr
    both = run_hive("run", "go", "--fork", parent, "--resume", parent, *args(llm_server, tmp_path))
    assert both.returncode == 2 and "--fork" in both.stderr
    no_key = run_hive("run", "go", "--fork", parent, "--model", "anthropic/claude-x", "-C", str(tmp_path))
    assert no_key.returncode == 2 and "Traceback" not in no_key.stderr
    assert [path.name for path in sessions.glob("*.jsonl")] == [f"{parent}.jsonl"]
    assert len(llm_server.chat_requests) == 1


def test_search_says_which_session_and_shows_the_words_around_as_visible_text(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("The \x1b[31mred\x1b[0m zebra crossing is fixed."), text("ok"))
    wanted = started(llm_server, tmp_path, "fix the crossing")
    started(llm_server, tmp_path, "something else")

    found = run_hive("sessions", "search", "ZEBRA")
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[0].startswith(f"{wanted}  ")
    assert "assistant, line" in found.stdout and "zebra crossing is fixed" in found.stdout
    assert "\x1b" not in found.stdout
    assert "1 of 2 session(s)" in found.stderr

    as_json = run_hive("sessions", "search", "crossing", "--format", "json")
    [session] = json.loads(as_json.stdout)["sessions"]
    assert session["id"] == wanted and [hit["role"] for hit in session["hits"]] == ["title", "user", "assistant"]

    nothing = run_hive("sessions", "search", "platypus")
    assert nothing.returncode == 1 and nothing.stdout == "" and "0 of 2" in nothing.stderr


def test_export_and_import_round_trip(llm_server: LLMServer, tmp_path: Path, isolated_hive: Path) -> None:
    llm_server.script(text("Noted."), text("It was fig."))
    original = started(llm_server, tmp_path, "remember the word fig")
    original_file = isolated_hive / "data" / "sessions" / f"{original}.jsonl"
    before = original_file.read_bytes()
    export = tmp_path / "fig.hive-session"

    to_file = run_hive("sessions", "export", original, "-o", str(export))
    assert to_file.returncode == 0, to_file.stderr
    to_stdout = run_hive("sessions", "export", original)
    assert to_stdout.stdout.encode() == export.read_bytes()

    again = run_hive("sessions", "import", str(export))
    assert again.returncode == 0, again.stderr
    copy = again.stdout.strip()
    assert copy != original and "exists already" in again.stderr
    assert original_file.read_bytes() == before

    resumed = run_hive("run", "what was the word?", "--resume", copy, *args(llm_server, tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    assert [m["content"] for m in llm_server.chat_requests[1].messages[1:3]] == ["remember the word fig", "Noted."]

    original_file.unlink()
    back = run_hive("sessions", "import", str(export))
    assert back.returncode == 0 and back.stdout.strip() == original
    assert original_file.read_bytes() == before


def test_a_malformed_import_is_one_clear_error_with_status_2(tmp_path: Path, isolated_hive: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "session", "id": "x"}\n')
    refused = run_hive("sessions", "import", str(bad))
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0 and "not a hive session export" in refused.stderr
    assert "Traceback" not in refused.stderr
    missing = run_hive("sessions", "import", str(tmp_path / "absent"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    assert (
        not list((isolated_hive / "data" / "sessions").glob("*.jsonl"))
        if (isolated_hive / "data" / "sessions").exists()
        else True
    )


def test_export_refuses_to_write_a_session_to_a_terminal(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Noted."))
    session = started(llm_server, tmp_path, "hello")
    child = pexpect.spawn(
        sys.executable, ["-m", "hive_cli", "sessions", "export", session], env=hive_env(), encoding="utf-8", timeout=60
    )
    child.expect("stdout is a terminal: give -o FILE")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
