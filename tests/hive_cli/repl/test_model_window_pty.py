"""/model in the REPL shows the window hive works with and where it learned it (a real pseudo-terminal)."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer, text
from tests.support.llm_window import ServedWindow
from tests.support.terminal import leave_repl, send_line, spawn_repl


def test_model_shows_the_window_the_local_server_said(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.serve_window(ServedWindow(8192, kind="llama.cpp")).script(text("Short answer."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "hello")
    child.expect("Short answer.")
    child.expect("›")
    send_line(child, "/model")
    child.expect("window 8,192 tokens \\(from llama.cpp /props\\)")
    child.expect("›")
    assert leave_repl(child) == 0
