"""A person at the terminal can allow what --yes never does: the question comes each time, without "always"."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

from hive_cli.repl.approver import PERSON_ONLY_NOTE
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.terminal import PROMPT, QUESTION, exit_status, leave_repl, send_line, spawn_repl, spawn_run

HOOK = "#!/bin/sh\nmake lint\n"


def git_repository(folder: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    return folder


def test_hive_run_at_a_terminal_asks_the_person_who_allows_the_writes(llm_server: LLMServer, tmp_path: Path) -> None:
    project = git_repository(tmp_path)
    llm_server.script(
        tool_calls(call("write_file", {"path": "AGENTS.md", "content": "Use tabs.\n"}, id="agents")),
        tool_calls(call("write_file", {"path": ".git/hooks/pre-commit", "content": HOOK}, id="hook")),
        text("Both written."),
    )
    child = spawn_run(llm_server, project, "set up the project")
    child.logfile_read = transcript = io.StringIO()
    for written in ("Use tabs.", "make lint"):  # each question shows its diff before it asks
        child.expect(written)
        child.expect(QUESTION)
        child.expect("deny always in this project")
        child.send("y")
    child.expect("Both written.")
    assert exit_status(child) == 0
    shown = transcript.getvalue()
    assert shown.count(PERSON_ONLY_NOTE) == 2
    assert "yes, always" not in shown and "always in this project (writes" not in shown
    assert (project / "AGENTS.md").read_text() == "Use tabs.\n"
    assert (project / ".git" / "hooks" / "pre-commit").read_text() == HOOK


def test_the_repl_asks_again_each_time_and_with_yes_refuses_without_asking(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    first = call("write_file", {"path": ".ironhive/settings.yaml", "content": "model: one\n"}, id="s1")
    second = call("write_file", {"path": ".ironhive/settings.yaml", "content": "model: two\n"}, id="s2")
    llm_server.script(tool_calls(first), tool_calls(second), text("Written twice."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "write the settings twice")
    child.expect(QUESTION)
    child.send("y")
    child.expect("model: two")  # no "always" was given or offered: the same file is asked about again
    child.expect(QUESTION)
    child.send("y")
    child.expect("Written twice.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert (tmp_path / ".ironhive" / "settings.yaml").read_text() == "model: two\n"

    third = call("write_file", {"path": ".ironhive/settings.yaml", "content": "sandbox: off\n"}, id="s3")
    llm_server.script(tool_calls(third), text("Refused."))
    child = spawn_repl(llm_server, tmp_path, "--yes")
    send_line(child, "turn the sandbox off")
    assert child.expect([QUESTION, "Refused."]) == 1
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert (tmp_path / ".ironhive" / "settings.yaml").read_text() == "model: two\n"
    assert "--yes does not cover it" in llm_server.chat_requests[-1].messages[-1]["content"]
