"""A cancelled request in the REPL, in a real pseudo-terminal: what the history keeps and what it cost.

Also the status line's context share, and a Ctrl-C that lands as a streamed reply ends.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from typing import Any

import pexpect

from engine.run.cut_replies import CANCELLED_MARK
from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer, raw_sse, text
from tests.support.terminal import PROMPT, TIMEOUT, leave_repl, model_args, send_line, spawn_repl

CURSOR_QUERY = re.escape("\x1b[6n")
NEVER = 3600.0
"""A pause in the stream that no test waits out: the request is cancelled during it."""

PAUSES = (0.0, 0.01, 0.02, 0.03, 0.05, 0.08)
"""Pauses between the stream's last chunks: they move the end of the stream around the Ctrl-C that follows
the text on the screen, so that across the rounds it lands before, at and after the run's end."""


def chunk(content: str) -> dict[str, Any]:
    choice = {"index": 0, "delta": {"role": "assistant", "content": content}, "finish_reason": None}
    return {"id": "c1", "object": "chat.completion.chunk", "model": "test-model", "choices": [choice]}


def test_a_cancelled_request_keeps_what_streamed_marked_and_the_next_request_is_answered(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(raw_sse(chunk("First part of the answer. "), chunk("Never sent."), chunk_delay=NEVER))
    llm_server.script(text("Answer two."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "question one")
    child.expect("First part of the answer.")
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect(r"(\S+) in / (\S+) out")
    sent_in, sent_out = child.match.groups()
    assert "?" not in sent_in + sent_out, "the cancelled request's usage was not counted"
    child.expect(PROMPT)
    send_line(child, "question two")
    child.expect("Answer two.")
    child.expect(PROMPT)
    messages = [(m["role"], m["content"]) for m in llm_server.chat_requests[1].json["messages"]]
    assert messages[1:] == [
        ("user", "question one"),
        ("assistant", f"First part of the answer.\n\n{CANCELLED_MARK}"),
        ("user", "question two"),
    ]
    assert leave_repl(child) == 0


def spawn_repl_that_answers_cursor_queries(server: LLMServer, workdir: Path) -> pexpect.spawn:
    """The REPL at a terminal that answers prompt-toolkit's cursor-position queries (then it draws the status line)."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "hive_cli", *model_args(server, workdir)],
        env=hive_env(TERM="xterm-256color", COLUMNS="100", LINES="30"),
        encoding="utf-8",
        dimensions=(30, 100),
        timeout=TIMEOUT,
    )


def expect_answering_cursor_queries(child: pexpect.spawn, patterns: list[str]) -> int:
    """Wait for one of ``patterns`` (its index), answering each cursor-position query on the way (row 10)."""
    while (index := child.expect([CURSOR_QUERY, *patterns])) == 0:
        child.send("\x1b[10;1R")
    return index - 1


def test_the_status_line_shows_the_context_share_that_slash_context_shows(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("Hello there."))
    child = spawn_repl_that_answers_cursor_queries(llm_server, tmp_path)
    expect_answering_cursor_queries(child, ["context –"])  # before the first request: nothing to measure
    send_line(child, "hi")
    expect_answering_cursor_queries(child, [r"in / \S+ out"])
    shown = expect_answering_cursor_queries(child, [r"context ~?(\d+)%", "context –"])
    assert shown == 0, "after a request the status line shows no context share"
    in_status = int(child.match.group(1))
    send_line(child, "/context")
    expect_answering_cursor_queries(child, [r"\((\d+\.\d)%"])
    in_context = float(child.match.group(1))
    assert in_context > 0
    assert abs(in_status - in_context) <= 0.55, (in_status, in_context)
    assert leave_repl(child) == 0


def test_ctrl_c_as_a_reply_ends_never_breaks_the_repl(llm_server: LLMServer, tmp_path: Path) -> None:
    for n, pause in enumerate(PAUSES):
        llm_server.script(text(f"Reply number {n} ends here.", chunk_size=8, chunk_delay=pause))
        # Without NOFLSH the kernel would drop the usage line when Ctrl-C lands while it is still unread.
        child = spawn_repl(llm_server, tmp_path, keep_output_on_ctrl_c=True)
        child.logfile_read = transcript = io.StringIO()
        send_line(child, f"question {n}")
        child.expect(f"number {n} ends here.")
        child.sendcontrol("c")  # at once: the run may be ending, ended, or the prompt coming up
        child.expect(PROMPT)
        # The terminal echoes the Ctrl-C as "^C" wherever the output is then, even inside the usage line.
        shown = str(child.before).replace("^C", "")  # what came between the reply's end and the prompt
        assert re.search(r"in / \S+ out", shown), transcript.getvalue()
        send_line(child, "/exit")
        child.expect(pexpect.EOF)
        child.close()
        assert "Traceback" not in transcript.getvalue(), transcript.getvalue()
        assert child.exitstatus == 0, transcript.getvalue()
