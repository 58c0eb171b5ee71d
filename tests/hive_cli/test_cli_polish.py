"""Small things a newcomer reads: help in people's words, honest counts, what hive cannot use."""

from __future__ import annotations

import json
from pathlib import Path

from engine.events import ToolCall
from engine.policy.summary import summarize_call
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text


def test_help_names_arguments_and_values_as_people_write_them() -> None:
    shown = run_hive("run", "--help").stdout
    assert "run [OPTIONS] TASK\n" in shown
    assert "  TASK  What hive should do." in shown
    for option in ("--model MODEL", "--api-base URL", "--api-key KEY", "--cwd DIR", "--max-turns N"):
        assert option in shown
    for typer_word in ("{", "<str>", "<int", "x>=1"):
        assert typer_word not in shown
    assert (
        run_hive("permissions", "check", "--help")
        .stdout.splitlines()[0]
        .endswith("permissions check [OPTIONS] TOOL [KEY=VALUE]...")
    )


def test_a_three_line_write_is_three_lines() -> None:
    call = ToolCall(id="w", name="write_file", arguments={"path": "a.txt", "content": "one\ntwo\nthree\n"})
    assert summarize_call(call) == "write a.txt (3 lines)"
    single = ToolCall(id="w", name="write_file", arguments={"path": "a.txt", "content": "one"})
    assert summarize_call(single) == "write a.txt (1 line)"


def test_an_mcp_json_server_hive_cannot_use_is_mentioned(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"odd": {"type": "websocket", "url": "ws://127.0.0.1:9"}}}')
    llm_server.script(text("ok"))
    done = run_hive(
        "run", "hi", "-o", "json", "--model", "openai/test-model", "--api-base", llm_server.base_url,
        "-C", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    notices = json.loads(done.stdout)["notices"]
    assert any(".mcp.json: MCP server 'odd' skipped" in notice for notice in notices), notices
