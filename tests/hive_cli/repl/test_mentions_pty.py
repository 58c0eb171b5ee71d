"""A quoted ``@"name with spaces ü"`` typed at the REPL attaches that file."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer, text
from tests.support.terminal import PROMPT, leave_repl, send_line, spawn_repl


def test_a_quoted_mention_with_spaces_and_non_ascii_letters_is_attached(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / "my file ü.txt").write_text("UMLAUT-CONTENT\n", encoding="utf-8")
    llm_server.script(text("Read it."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, 'what is in @"my file ü.txt"')
    child.expect("Read it.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    sent = llm_server.chat_requests[0].messages[-1]["content"]
    assert '<file path="my file ü.txt">\nUMLAUT-CONTENT\n' in sent
