"""Issue #43 in the REPL: a reply that trickles past ``request_timeout`` shows the documented retries, then one
error naming the setting and its value, and the prompt comes back for the next request."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.llm_server import LLMServer, text, trickled
from tests.support.terminal import PROMPT, leave_repl, send_line, spawn_repl

LONG_ANSWER = "A long answer that a slow server sends one byte at a time. " * 20


def test_a_trickling_reply_is_retried_then_fails_naming_request_timeout_and_the_repl_goes_on(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    settings = Path(os.environ["HIVE_HOME"]) / "config" / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("request_timeout: 3\n", encoding="utf-8")
    llm_server.script(*(trickled(text(LONG_ANSWER), 0.05) for _ in range(4)), text("Quick answer."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "explain")
    for _ in range(3):
        child.expect("did not finish within request_timeout 3s")
        child.expect("retrying in")
    child.expect("✗ ")
    child.expect("did not finish within request_timeout 3s")
    child.expect("or raise")  # the fix-it line (wrapped at the terminal's width)
    child.expect("request_timeout in settings.yaml")
    child.expect(PROMPT)
    assert len(llm_server.chat_requests) == 4
    send_line(child, "again")
    child.expect("Quick answer.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
