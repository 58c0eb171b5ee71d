"""/fork in the REPL, in a real pseudo-terminal against the scripted model server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hive_cli.repl.test_repl_pty import quit_repl, send_line, spawn_repl
from tests.support.llm_server import LLMServer, text


def messages(path: Path) -> list[str]:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return [r["message"]["content"] for r in records if r["type"] == "message"]


def test_fork_goes_on_in_a_copy_and_leaves_the_conversation_it_came_from(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    llm_server.script(text("Noted kiwi."), text("It was kiwi."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/fork")
    child.expect("Nothing to fork yet")
    child.expect("›")
    send_line(child, "remember kiwi")
    child.expect("Noted kiwi.")
    child.expect("›")
    send_line(child, "/fork")
    child.expect("Forked ")
    child.expect("›")
    send_line(child, "what was it?")
    child.expect("It was kiwi.")
    child.expect("›")
    quit_repl(child)

    assert [m["content"] for m in llm_server.chat_requests[1].messages[1:]] == [
        "remember kiwi",
        "Noted kiwi.",
        "what was it?",
    ]
    files = list((isolated_hive / "data" / "sessions").glob("*.jsonl"))
    headers = {path: json.loads(path.read_text().splitlines()[0]) for path in files}
    [original] = [path for path, header in headers.items() if "parent" not in header]
    [fork] = [path for path, header in headers.items() if header.get("parent") == original.stem]
    assert messages(original) == ["remember kiwi", "Noted kiwi."]
    assert messages(fork) == ["remember kiwi", "Noted kiwi.", "what was it?", "It was kiwi."]
