"""The REPL on a full disk: it says where there is no room and goes on, never ends at an Enter.

A small tmpfs (tests.support.small_disk; the suite runs as root in CI) holds HIVE_HOME; skips, saying why,
where it cannot be mounted.
"""

from __future__ import annotations

from pathlib import Path

import pexpect
import pytest

from tests.support.llm_server import LLMServer, text
from tests.support.small_disk import fill
from tests.support.terminal import PROMPT, leave_repl, send_line, spawn_repl


def test_a_full_disk_under_hive_home_leaves_the_repl_answering(
    llm_server: LLMServer, tmp_path: Path, small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIVE_HOME", str(small_disk))
    llm_server.script(text("Answered after all."))
    child = spawn_repl(llm_server, tmp_path)
    fill(small_disk)

    send_line(child, "/help")  # its history line finds no room
    child.expect("/undo")
    child.expect(PROMPT)
    send_line(child, "hello")  # nor does the session file
    child.expect("no space left on device writing the session file in")
    child.expect(PROMPT)
    (small_disk / "filler").unlink()
    send_line(child, "hello again")
    child.expect("Answered after all")
    child.expect(PROMPT)

    assert leave_repl(child) == 0
    assert len(llm_server.chat_requests) == 1  # the turn that could not be saved was not sent


def test_nothing_ends_the_repl_at_the_first_enter(
    llm_server: LLMServer, tmp_path: Path, small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIVE_HOME", str(small_disk))
    child = spawn_repl(llm_server, tmp_path)
    fill(small_disk)
    send_line(child, "/help")
    assert child.expect([PROMPT, pexpect.EOF]) == 0
