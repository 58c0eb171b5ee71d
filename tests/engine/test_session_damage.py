"""Session files that took damage: every intact record is read back, the history stays one a model accepts.

The files are written by the real SessionStore and then damaged the way a disk or a stray write does it:
a few bytes that are not UTF-8 in a line, a line overwritten, a first line lost.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from engine.conversation import Conversation
from engine.errors import UserError
from engine.model.types import Message
from engine.redaction.scrubber import Scrubber
from engine.session_store import LoadedSession, SessionStore

GARBAGE = b"\xff\xfe\x80garbage\xc3"


def assistant_calling(*ids: str) -> Message:
    calls = [{"id": i, "type": "function", "function": {"name": "read_file", "arguments": "{}"}} for i in ids]
    return {"role": "assistant", "content": "", "tool_calls": calls}


def result(call_id: str, content: str) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def written(store: SessionStore, messages: list[Message], compact_after: dict[int, int] | None = None) -> Path:
    """A session file holding ``messages`` (and, after message i, a compaction through compact_after[i])."""
    writer = store.create(cwd=store.root.parent, model="m", scrub=Scrubber(()))
    conversation = Conversation()
    conversation.record_to(writer)
    for index, message in enumerate(messages):
        conversation.append(message)
        if compact_after and index in compact_after:
            conversation.compact(compact_after[index], f"summary through {compact_after[index]}")
    writer.close()
    return writer.path


def damage_line(path: Path, number: int, how: bytes = GARBAGE, at: int | None = None) -> None:
    """Put ``how`` into line ``number`` (counted from 1) at byte ``at`` (its middle by default)."""
    lines = path.read_bytes().split(b"\n")
    place = len(lines[number - 1]) // 2 if at is None else at
    lines[number - 1] = lines[number - 1][:place] + how + lines[number - 1][place:]
    path.write_bytes(b"\n".join(lines))


ROUND_AFTER_THREE: list[Message] = [
    {"role": "user", "content": "u0"},
    {"role": "assistant", "content": "a0"},
    {"role": "user", "content": "u1"},
    assistant_calling("x"),
    result("x", "x result"),
    {"role": "assistant", "content": "a1"},
]


def contents(loaded: LoadedSession) -> list[Any]:
    return [m.get("content") for m in loaded.messages]


def assert_valid_history(messages: tuple[Message, ...]) -> None:
    """Every result follows the call it answers, and every call is answered before anything else is said."""
    waiting: set[str] = set()
    for message in messages:
        if message.get("role") == "tool":
            assert message["tool_call_id"] in waiting, f"a result without its call: {message}"
            waiting.discard(message["tool_call_id"])
            continue
        assert not waiting, f"calls {waiting} unanswered before {message}"
        waiting = {call["id"] for call in message.get("tool_calls") or ()}


def test_bytes_that_are_not_utf8_in_one_line_cost_that_line_only(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    talk: list[Message] = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "two"},
        {"role": "user", "content": "three"},
        {"role": "assistant", "content": "four"},
    ]
    path = written(store, talk)
    damage_line(path, 3)  # "two" (line 1 is the header)
    loaded = store.load(path.stem)
    assert contents(loaded) == ["one", "three", "four"]
    assert loaded.damage.lines == (3,)
    assert (
        loaded.notice
        == f"session {path.stem}: skipped 1 damaged line (line 3); resumed from the records that were intact"
    )
    assert [info.id for info in store.list(tmp_path)] == [path.stem]


def test_a_tool_round_that_lost_its_result_is_dropped_whole_and_the_history_stays_valid(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    talk: list[Message] = [
        {"role": "user", "content": "read a and b"},
        assistant_calling("a", "b"),
        result("a", "text of a"),
        result("b", "text of b"),
        {"role": "assistant", "content": "read them"},
        {"role": "user", "content": "and c?"},
        assistant_calling("c"),
        result("c", "text of c"),
        {"role": "assistant", "content": "c read"},
    ]
    path = written(store, talk)
    damage_line(path, 5)  # the result of b: a's result alone would answer half the round
    damage_line(path, 9, b'\n{"type": "mess')  # c's call cut in two: the first half broken, the second no JSON
    loaded = store.load(path.stem)
    assert contents(loaded) == ["read a and b", "read them", "and c?", "c read"]
    assert_valid_history(loaded.messages)
    assert loaded.damage.lines == (5, 9, 10)
    assert (loaded.damage.rounds, loaded.damage.messages) == (2, 3)
    assert "skipped 3 damaged lines (lines 5, 9, 10)" in loaded.notice
    assert (
        "dropped 2 tool rounds whose call or result was on a damaged line, with 3 intact messages of them"
        in loaded.notice
    )


def test_a_round_still_waiting_at_the_end_is_kept_for_the_host_to_answer(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    path = written(store, [{"role": "user", "content": "go"}, assistant_calling("a", "b"), result("a", "done")])
    loaded = store.load(path.stem)  # killed mid-round: nothing is damaged
    assert contents(loaded) == ["go", "", "done"] and not loaded.damage
    conversation = Conversation(loaded.messages)
    assert conversation.answer_unanswered("Interrupted") == 1
    assert_valid_history(conversation.messages)


def test_a_compaction_after_a_damaged_line_still_stands_for_the_same_messages(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    talk: list[Message] = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(6)]
    path = written(store, talk, compact_after={4: 4})  # the summary stands for m0..m3
    damage_line(path, 3)  # m1
    loaded = store.load(path.stem)
    view = Conversation(loaded.messages, loaded.compactions).view()
    assert [m["content"] for m in view[1:]] == ["m4", "m5"]
    assert view[0]["content"].endswith("summary through 4")


def test_a_round_that_lost_its_call_goes_and_the_compaction_before_it_still_fits(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    path = written(store, ROUND_AFTER_THREE, compact_after={5: 3})  # the summary stands for u0, a0, u1
    damage_line(path, 5)  # x's call: its result is left alone, so the round goes
    loaded = store.load(path.stem)
    assert contents(loaded) == ["u0", "a0", "u1", "a1"]
    view = Conversation(loaded.messages, loaded.compactions).view()
    assert [m["content"] for m in view[1:]] == ["a1"]


def test_a_compaction_that_no_longer_fits_is_dropped_and_said(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    path = written(store, ROUND_AFTER_THREE, compact_after={5: 3})
    damage_line(path, 4, at=0)  # u1, so damaged from its start that nothing says it was a message
    loaded = store.load(path.stem)
    assert contents(loaded) == ["u0", "a0", "", "x result", "a1"]
    assert loaded.compactions == () and loaded.damage.compactions == 1  # it would begin with x's result
    assert "dropped 1 compaction that no longer fits the messages kept" in loaded.notice
    assert_valid_history(Conversation(loaded.messages, loaded.compactions).view())


def test_a_resumed_session_reads_back_as_the_resuming_process_had_it(tmp_path: Path) -> None:
    """After a resume from a damaged file, the new records count messages as that process had them."""
    store = SessionStore(tmp_path / "sessions")
    talk: list[Message] = [
        {"role": "user", "content": "u0"},
        assistant_calling("x"),
        result("x", "x result"),
        {"role": "assistant", "content": "a0"},
        {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"},
    ]
    path = written(store, talk)
    damage_line(path, 4)  # x's result: the round goes
    loaded = store.claim(path.stem)
    writer = store.reopen(path.stem, scrub=Scrubber(()))
    conversation = Conversation(loaded.messages, loaded.compactions)
    conversation.record_to(writer)
    for i in range(2, 6):
        conversation.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"n{i}"})
    conversation.compact(len(conversation) - 2, "summary of the resumed process")
    writer.close()
    store.unclaim(path.stem)

    again = store.load(path.stem)
    assert again.messages == conversation.messages
    assert Conversation(again.messages, again.compactions).view() == conversation.view()


def test_a_damaged_first_line_leaves_the_session_resumable_by_its_id_and_listed_marked(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    path = written(store, [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}])
    damage_line(path, 1, b'\x00"}}{\xff')
    loaded = store.load(path.stem)
    assert contents(loaded) == ["hello", "hi"]
    assert loaded.info.damaged_header and loaded.damage.header
    assert "its first line (where and with which model it began) is damaged" in loaded.notice
    assert store.list(tmp_path) == []  # its project is unknown: --continue never picks it
    assert [info.id for info in store.scan(tmp_path).unplaced] == [path.stem]
    assert [(info.id, info.damaged_header) for info in store.list()] == [(path.stem, True)]


def test_bytes_that_are_not_utf8_in_the_title_keep_the_header(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    writer = store.create(cwd=tmp_path, model="m", scrub=Scrubber(()), title="fix the bug")
    writer.append_message({"role": "user", "content": "fix the bug"})
    writer.close()
    raw = writer.path.read_bytes()
    writer.path.write_bytes(raw.replace(b"fix the bug", b"fix \xff the bug", 1))
    [info] = store.list(tmp_path)
    assert info.title == "fix \ufffd the bug" and info.model == "m" and not info.damaged_header
    assert contents(store.load(info.id)) == ["fix the bug"]


def test_a_file_with_no_intact_record_is_not_a_session(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    path = written(store, [{"role": "user", "content": "hello"}])
    path.write_bytes(GARBAGE + b"\n" + GARBAGE + b"\n")
    assert store.scan().skipped == (path,)
    with pytest.raises(UserError, match="not a readable hive session file"):
        store.load(path.stem)


def test_a_fifo_among_the_session_files_is_skipped_not_waited_on(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    path = written(store, [{"role": "user", "content": "hello"}])
    fifo = path.with_name("20990101-000000-fifo00.jsonl")
    os.mkfifo(fifo)
    listing = store.scan()
    assert [info.id for info in listing.sessions] == [path.stem] and listing.skipped == (fifo,)
