"""Forking a session, and exporting one to a single file and importing it back (engine/sessions/copies.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.conversation import Conversation
from engine.errors import UserError
from engine.redaction.scrubber import Scrubber
from engine.session_store import SessionStore
from engine.sessions.copies import BadExport, export_session, fork_session, import_session

NO_SCRUB = Scrubber(())


def saved(store: SessionStore, cwd: Path, *texts: str) -> str:
    """A session of ``texts`` (user and assistant in turn), with a compaction after the second, closed."""
    writer = store.create(cwd=cwd, model="m", scrub=NO_SCRUB, title="the task")
    conversation = Conversation()
    conversation.record_to(writer)
    for number, text in enumerate(texts):
        conversation.append({"role": "user" if number % 2 == 0 else "assistant", "content": text})
        if number == 1:
            conversation.compact(2, "they said hello", "manual")
    writer.close()
    return writer.id


def test_a_fork_holds_the_history_names_its_parent_and_leaves_the_original_untouched(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    parent = saved(store, tmp_path, "hello", "hi", "fix the bug", "done")
    before = (store.root / f"{parent}.jsonl").read_bytes()
    fork = fork_session(store, parent, NO_SCRUB)
    assert fork.id != parent and fork.parent == parent
    assert (fork.cwd, fork.model, fork.title) == (str(tmp_path), "m", "the task")
    original, copy = store.load(parent), store.load(fork.id)
    assert copy.messages == original.messages and copy.compactions == original.compactions
    assert (store.root / f"{parent}.jsonl").read_bytes() == before
    assert fork.path.read_bytes().split(b"\n", 1)[1] == before.split(b"\n", 1)[1]  # the history, byte for byte
    assert json.loads(fork.path.read_text().splitlines()[0])["id"] == fork.id


def test_a_fork_continues_apart_from_its_parent(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    parent = saved(store, tmp_path, "hello", "hi")
    fork = fork_session(store, parent, NO_SCRUB)
    writer = store.reopen(fork.id, scrub=NO_SCRUB)
    writer.append_message({"role": "user", "content": "only in the fork"})
    writer.close()
    assert [m["content"] for m in store.load(fork.id).messages] == ["hello", "hi", "only in the fork"]
    assert [m["content"] for m in store.load(parent).messages] == ["hello", "hi"]


def test_a_fork_leaves_out_a_line_still_being_written(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    parent = saved(store, tmp_path, "hello", "hi")
    with (store.root / f"{parent}.jsonl").open("a") as handle:
        handle.write('{"type": "message", "message": {"role": "us')
    fork = fork_session(store, parent, NO_SCRUB)
    loaded = store.load(fork.id)
    assert [m["content"] for m in loaded.messages] == ["hello", "hi"] and loaded.dropped_lines == 0


def test_forking_an_unknown_session_is_a_clear_error_and_leaves_nothing(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    with pytest.raises(UserError, match="no session 'nope'"):
        fork_session(store, "nope", NO_SCRUB)
    assert not store.root.exists() or not list(store.root.iterdir())


def test_an_export_imported_where_its_id_is_free_comes_back_byte_for_byte(tmp_path: Path) -> None:
    home, elsewhere = SessionStore(tmp_path / "home"), SessionStore(tmp_path / "elsewhere")
    session_id = saved(home, tmp_path, "hello", "hi", "naïve café \u2603", "done")
    export = tmp_path / "session.jsonl"
    export.write_bytes(export_session(home, session_id))
    imported = import_session(elsewhere, export, NO_SCRUB).info
    assert imported.id == session_id
    assert imported.path.read_bytes() == (home.root / f"{session_id}.jsonl").read_bytes()


def test_an_import_never_overwrites_a_session_and_keeps_the_history(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    session_id = saved(store, tmp_path, "hello", "hi", "fix it", "fixed")
    before = (store.root / f"{session_id}.jsonl").read_bytes()
    export = tmp_path / "session.jsonl"
    export.write_bytes(export_session(store, session_id))
    first, second = (import_session(store, export, NO_SCRUB) for _ in range(2))
    assert first.exported_id == second.exported_id == session_id
    first, second = first.info, second.info
    assert len({session_id, first.id, second.id}) == 3
    assert (store.root / f"{session_id}.jsonl").read_bytes() == before
    original = store.load(session_id)
    for copy in (store.load(first.id), store.load(second.id)):
        assert copy.messages == original.messages and copy.compactions == original.compactions
        assert copy.info.title == original.info.title and copy.info.created == original.info.created


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda data: b"not json\n" + data, "is not a hive session export"),
        (lambda data: data[: len(data) - 10], "cut short or changed"),
        (lambda data: data.replace(b"fix it", b"fix me"), "checksum does not match"),
        (lambda data: data.replace(b'"format": 1', b'"format": 9'), "of format 9"),
        (lambda data: b"", "is not a hive session export"),
    ],
)
def test_a_malformed_export_is_one_clear_error_and_places_nothing(
    tmp_path: Path, change: Callable[[bytes], bytes], said: str
) -> None:
    store = SessionStore(tmp_path / "sessions")
    session_id = saved(store, tmp_path, "hello", "hi", "fix it", "fixed")
    export = tmp_path / "session.jsonl"
    export.write_bytes(change(export_session(store, session_id)))
    with pytest.raises(BadExport, match=said):
        import_session(store, export, NO_SCRUB)
    assert [path.name for path in store.root.iterdir()] == [f"{session_id}.jsonl"]


def test_an_import_passes_the_scrubber_so_no_known_secret_reaches_the_folder(tmp_path: Path) -> None:
    origin, store = SessionStore(tmp_path / "origin"), SessionStore(tmp_path / "sessions")
    session_id = saved(origin, tmp_path, "my token is tok-1234567890abcdef", "noted")
    export = tmp_path / "session.jsonl"
    export.write_bytes(export_session(origin, session_id))
    scrub = Scrubber.from_environment({"SERVICE_TOKEN": "tok-1234567890abcdef"})
    imported = import_session(store, export, scrub).info
    assert "tok-1234567890abcdef" not in imported.path.read_text()
    assert "[redacted: $SERVICE_TOKEN]" in store.load(imported.id).messages[0]["content"]
