"""Full-text search over the saved sessions (engine/sessions/search.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.model.types import Message
from engine.redaction.scrubber import Scrubber
from engine.session_store import SessionStore
from engine.sessions.search import HITS_PER_SESSION, search_sessions


def saved(store: SessionStore, cwd: Path, *messages: Message, title: str = "") -> str:
    writer = store.create(cwd=cwd, model="m", scrub=Scrubber(()), title=title)
    for message in messages:
        writer.append_message(message)
    writer.close()
    return writer.id


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def test_the_session_the_role_and_the_words_around_the_match_case_ignored(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    found = saved(store, tmp_path, user("hello"), {"role": "assistant", "content": "The Flux Capacitor is fixed now."})
    saved(store, tmp_path, user("nothing to see"))
    result = search_sessions(store, "flux capacitor")
    assert result.searched == 2
    assert [hits.session.id for hits in result.sessions] == [found]
    [hit] = result.sessions[0].hits
    assert (hit.line, hit.role, hit.snippet) == (3, "assistant", "The Flux Capacitor is fixed now.")


def test_tool_results_tool_calls_titles_and_content_parts_are_searched(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    call = {"id": "c1", "type": "function", "function": {"name": "run_shell", "arguments": '{"command": "make quux"}'}}
    saved(
        store,
        tmp_path,
        user("start"),
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "quux: built"},
        {"role": "user", "content": [{"type": "text", "text": "and quux again"}]},
        title="about quux",
    )
    [session] = search_sessions(store, "quux").sessions
    assert [(hit.line, hit.role) for hit in session.hits] == [(1, "title"), (3, "assistant"), (4, "tool")]
    assert session.more
    assert 'run_shell({"command": "make quux"})' in session.hits[1].snippet


def test_texts_json_escapes_and_text_beyond_ascii_are_found(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    saved(store, tmp_path, user('she said "ship it"\nthen left'), user("Ünïcödé CAFÉ"))
    assert search_sessions(store, 'said "ship it"\nthen').sessions
    assert search_sessions(store, "café").sessions
    assert search_sessions(store, "\\").sessions == ()


def test_a_long_text_is_cut_around_the_match_and_shown_on_one_line(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    saved(store, tmp_path, user("a" * 500 + "\n\nneedle\tin the\nhay " + "b" * 500))
    [hit] = search_sessions(store, "needle").sessions[0].hits
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert "needle in the hay" in hit.snippet and "\n" not in hit.snippet
    assert len(hit.snippet) < 200


def test_a_session_holding_the_text_many_times_shows_the_first_places(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    saved(store, tmp_path, *(user(f"word {n}") for n in range(10)), title="counting")
    [session] = search_sessions(store, "word").sessions
    assert [hit.line for hit in session.hits] == list(range(2, 2 + HITS_PER_SESSION)) and session.more


def test_damaged_lines_and_other_records_are_passed_over(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session_id = saved(store, tmp_path, user("first"))
    with (store.root / f"{session_id}.jsonl").open("ab") as handle:
        handle.write(b'{"type": "message", "message": {"role": "user", "content": "beacon \xff\n')
        handle.write(b'{"type": "resumed", "note": "beacon"}\n')
        handle.write(b'{"type": "message", "message": {"role": "user", "content": "beacon here"}}\n')
    [session] = search_sessions(store, "beacon").sessions
    assert [(hit.line, hit.snippet) for hit in session.hits] == [(5, "beacon here")]


def test_sessions_are_ordered_the_one_used_last_first_and_files_that_are_no_sessions_skipped(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    older = saved(store, tmp_path, user("topic one"))
    newer = saved(store, tmp_path, user("topic two"))
    (tmp_path / f"{older}.jsonl").touch()
    os.utime(tmp_path / f"{older}.jsonl", (1, 1))
    (tmp_path / "stray.jsonl").write_text("topic but no session\n")
    result = search_sessions(store, "topic")
    assert [hits.session.id for hits in result.sessions] == [newer, older]


def test_an_empty_text_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        search_sessions(SessionStore(tmp_path), "  ")
