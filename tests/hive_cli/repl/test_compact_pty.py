"""`/compact [focus]` in the REPL folds the older conversation into the task ledger, on request."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer, text
from tests.support.terminal import PROMPT, leave_repl, send_line, spawn_repl


def test_compact_folds_the_older_messages_into_the_ledger_with_the_focus_asked(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(*(text(f"answer {i}") for i in range(4)), text("Decisions made:\n- keep the old names"))
    child = spawn_repl(llm_server, tmp_path)
    for i in range(4):
        send_line(child, f"question {i}")
        child.expect(f"answer {i}")
        child.expect(PROMPT)
    send_line(child, "/compact the naming decisions")
    child.expect("Compacted 2 messages into the task ledger; 6 kept whole.")
    child.expect(PROMPT)
    leave_repl(child)

    summariser = llm_server.chat_requests[-1]
    assert "task ledger" in summariser.messages[0]["content"]
    assert "dwell on: the naming decisions" in summariser.messages[1]["content"]
    assert "question 0" in summariser.messages[1]["content"] and "question 3" not in summariser.messages[1]["content"]
