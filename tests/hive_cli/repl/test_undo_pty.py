"""/undo and /rewind in a real pseudo-terminal, after turns that changed files."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.terminal import QUESTION, leave_repl, send_line, spawn_repl


def test_undo_reverts_the_last_turn_after_asking_and_rewind_goes_back_further(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    llm_server.script(
        tool_calls(call("write_file", {"path": "a.txt", "content": "first\n"}, id="w1")),
        text("Wrote a."),
        tool_calls(call("execute_command", {"command": "rm notes.txt && echo b > b.txt"}, id="x1")),
        text("Changed more."),
        text("Noted."),
    )
    child = spawn_repl(llm_server, tmp_path, "--yes")
    send_line(child, "write a")
    child.expect("Wrote a.")
    child.expect("›")
    send_line(child, "change more")
    child.expect("Changed more.")
    child.expect("›")

    send_line(child, "/undo")
    child.expect("recreate notes.txt")
    child.expect(QUESTION)
    child.send("y")  # one key, as an approval: no Enter needed
    child.expect("put back")
    child.expect("›")
    assert (tmp_path / "notes.txt").read_text() == "mine\n" and not (tmp_path / "b.txt").exists()
    assert (tmp_path / "a.txt").exists()
    send_line(child, "what now?")
    child.expect("Noted.")
    child.expect("›")
    told = llm_server.chat_requests[-1].messages[-1]["content"]
    note, asked = told.split("\n\n")
    assert note.startswith("[hive: the person undid 1 earlier turn(s) of yours with /undo: ")
    assert "b.txt, notes.txt" in note and "went back to how they were before those turns" in note
    assert asked == "what now?"

    send_line(child, "/rewind")
    child.expect("rewind to which")
    send_line(child, "1")
    child.expect("remove a.txt")
    child.expect(QUESTION)
    child.send("n")
    child.expect("Nothing changed")
    child.expect("›")
    assert (tmp_path / "a.txt").exists()
    send_line(child, "/rewind 1")
    child.expect(QUESTION)
    child.send("y")
    child.expect("put back")
    child.expect("›")
    assert not (tmp_path / "a.txt").exists()
    assert leave_repl(child) == 0
