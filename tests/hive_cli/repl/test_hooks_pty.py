"""Hooks in the REPL, in a real terminal: a pre_tool hook's deny reaches the model, a timed-out hook is shown."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.terminal import leave_repl, send_line, spawn_repl
from tests.support.trust import trust

NO_MIGRATIONS = """\
case "$(cat)" in
  *'"path": "src/migrations/'*) echo "migrations are written by hand" >&2; exit 2 ;;
esac
"""


def settings(project: Path, hooks_yaml: str) -> None:
    (project / ".ironhive").mkdir()
    (project / ".ironhive" / "settings.yaml").write_text("hooks:\n" + hooks_yaml)
    (project / "src").mkdir()


def test_a_pre_tool_hook_that_denies_gives_the_model_its_reason(llm_server: LLMServer, tmp_path: Path) -> None:
    settings(tmp_path, "  - {event: pre_tool, matcher: write_file, command: 'sh .ironhive/no-migrations.sh'}\n")
    (tmp_path / ".ironhive" / "no-migrations.sh").write_text(NO_MIGRATIONS)
    llm_server.script(
        tool_calls(call("write_file", {"path": "src/migrations/m1.py", "content": "x = 1\n"}, id="w")),
        text("I will leave the migration to you."),
    )
    trust(tmp_path)
    child = spawn_repl(llm_server, tmp_path)

    send_line(child, "add a migration")
    child.expect("I will leave the migration to you.")
    child.expect("›")
    sent = llm_server.chat_requests[1].messages[-1]
    assert sent["role"] == "tool" and "migrations are written by hand" in sent["content"]
    assert not (tmp_path / "src" / "migrations").exists()
    assert leave_repl(child) == 0


def test_a_pre_tool_hook_that_times_out_denies_and_is_shown(llm_server: LLMServer, tmp_path: Path) -> None:
    settings(tmp_path, "  - {event: pre_tool, command: 'sleep 30', timeout: 0.5}\n")
    llm_server.script(
        tool_calls(call("write_file", {"path": "src/app.py", "content": "x = 1\n"}, id="w")),
        text("The hook did not answer."),
    )
    trust(tmp_path)
    child = spawn_repl(llm_server, tmp_path)

    send_line(child, "write the app")
    child.expect("timed out after 0.5 s and was stopped")
    child.expect("The hook did not answer.")
    child.expect("›")
    assert "timed out after 0.5 s" in llm_server.chat_requests[1].messages[-1]["content"]
    assert not (tmp_path / "src" / "app.py").exists()
    assert leave_repl(child) == 0
