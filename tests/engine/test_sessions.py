"""Session files: append-only JSONL, flushed per message, secrets redacted, damage at the end tolerated."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.conversation import Conversation
from engine.redaction.scrubber import Scrubber
from engine.session_store import SessionStore, SessionWriter


def test_messages_are_on_disk_as_soon_as_they_are_appended(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create(cwd=tmp_path, model="m", scrub=Scrubber(()), title="first task")
    conversation = Conversation()
    conversation.record_to(writer)
    conversation.append({"role": "user", "content": "hello"})
    # no close(): a killed process must already have written it
    loaded = store.load(writer.id)
    assert loaded.messages == ({"role": "user", "content": "hello"},)
    assert loaded.info.title == "first task"
    writer.close()


def test_a_line_cut_short_is_dropped_and_counted(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create(cwd=tmp_path, model="m", scrub=Scrubber(()))
    writer.append_message({"role": "user", "content": "one"})
    writer.append_message({"role": "assistant", "content": "two"})
    writer.close()
    with writer.path.open("a") as handle:
        handle.write('{"type": "message", "message": {"role": "us')
    loaded = store.load(writer.id)
    assert [m["content"] for m in loaded.messages] == ["one", "two"]
    assert loaded.dropped_lines == 1


def test_secrets_from_the_environment_and_the_api_key_never_reach_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-abcdefghijklmnop")
    store = SessionStore(tmp_path)
    scrub = Scrubber.from_environment(known=[("model-api-key", "sk-passed-on-the-command-line")])
    writer = store.create(cwd=tmp_path, model="m", scrub=scrub)
    writer.append_message({"role": "tool", "content": "env: sk-ant-abcdefghijklmnop and sk-passed-on-the-command-line"})
    writer.close()
    text = writer.path.read_text()
    assert "sk-ant-abcdefghijklmnop" not in text and "sk-passed-on-the-command-line" not in text
    assert "[redacted: $ANTHROPIC_API_KEY]" in text and "[redacted: model-api-key]" in text


def started(store: SessionStore, cwd: Path) -> SessionWriter:
    writer = store.create(cwd=cwd, model="m", scrub=Scrubber(()))
    writer.append_message({"role": "user", "content": "hello"})
    return writer


def test_a_session_nothing_was_said_in_leaves_no_file_and_the_first_message_titles_it(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    writer = store.create(cwd=tmp_path, model="m", scrub=Scrubber(()))
    writer.close()
    assert store.list() == [] and not writer.path.exists()
    writer = store.create(cwd=tmp_path, model="m", scrub=Scrubber(()))
    writer.append_message({"role": "user", "content": "fix the flaky test"})
    assert [i.title for i in store.list()] == ["fix the flaky test"]
    writer.close()


def test_sessions_are_listed_newest_first_and_per_directory(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    here, there = tmp_path / "here", tmp_path / "there"
    writers = [started(store, cwd) for cwd in (here, there, here)]
    for writer in writers:
        writer.close()
    ids = [writer.id for writer in writers]
    listed = store.list(here)
    assert [i.id for i in listed] == [ids[2], ids[0]]
    assert len(store.list()) == 3


def test_loading_an_unknown_session_is_a_clear_error(tmp_path: Path) -> None:
    from engine.errors import UserError

    with pytest.raises(UserError, match="no session 'nope'"):
        SessionStore(tmp_path).load("nope")


def test_a_session_file_with_a_damaged_header_is_skipped_and_reported(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    good = started(store, tmp_path)
    good.close()
    bad = tmp_path / "20260101-000000-bad000.jsonl"
    bad.write_text('{"type": "session", "id": "x", "created": "yesterday", "cwd": "/"}\n')
    (tmp_path / "20260101-000001-bad001.jsonl").write_text("not json at all\n")
    listing = store.scan()
    assert [i.id for i in listing.sessions] == [good.id]
    assert sorted(p.name for p in listing.skipped) == [bad.name, "20260101-000001-bad001.jsonl"]
    from engine.errors import UserError

    with pytest.raises(UserError, match="not a readable hive session file"):
        store.load(bad.stem)


def test_the_session_used_last_comes_first_whenever_it_was_started(tmp_path: Path) -> None:
    import os

    store = SessionStore(tmp_path)
    older, newer = (started(store, tmp_path) for _ in range(2))
    older.append_message({"role": "user", "content": "back to this one"})
    os.utime(older.path, (newer.path.stat().st_mtime + 10,) * 2)
    assert [i.id for i in store.list(tmp_path)] == [older.id, newer.id]
    older.close()
    newer.close()


def test_an_id_that_is_a_path_is_not_a_session(tmp_path: Path) -> None:
    from engine.errors import UserError

    store = SessionStore(tmp_path / "sessions")
    (tmp_path / "elsewhere.jsonl").write_text('{"type": "session", "created": 1}\n')
    with pytest.raises(UserError, match="no session"):
        store.load("../elsewhere")


def test_tool_outcomes_are_kept_so_a_refusal_reads_back_as_one(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create(cwd=tmp_path, model="m", scrub=Scrubber(()))
    conversation = Conversation()
    conversation.record_to(writer)
    calls = [{"id": i, "type": "function", "function": {"name": "x", "arguments": "{}"}} for i in "abc"]
    conversation.append({"role": "assistant", "content": "", "tool_calls": calls})
    conversation.append({"role": "tool", "tool_call_id": "a", "content": "ok"}, True)
    conversation.append({"role": "tool", "tool_call_id": "b", "content": "The x call was not run: no."}, False)
    conversation.append({"role": "tool", "tool_call_id": "c", "content": "host result"})
    loaded = store.load(writer.id)
    assert (loaded.succeeded("a"), loaded.succeeded("b"), loaded.succeeded("c")) == (True, False, None)
    assert [m["content"] for m in loaded.messages] == ["", "ok", "The x call was not run: no.", "host result"]
    writer.close()


def test_a_title_cut_short_keeps_no_part_of_a_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-proj-" + "Kq7Lm2Xz" * 6
    monkeypatch.setenv("OPENAI_API_KEY", key)
    writer = SessionStore(tmp_path).create(cwd=tmp_path, model="m", scrub=Scrubber.from_environment())
    writer.append_message({"role": "user", "content": "x" * 190 + key})
    writer.close()
    assert key[:10] not in writer.path.read_text()
    assert SessionStore(tmp_path).list()[0].title == "x" * 190 + "[redacted:"
