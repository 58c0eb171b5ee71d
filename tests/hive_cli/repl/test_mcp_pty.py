"""`/mcp` in the REPL at a real terminal: servers with status and tools, and a line when one connects or fails later."""

from __future__ import annotations

import secrets
import sys
import time
from pathlib import Path

import pytest

from tests.support.llm_server import LLMServer, text
from tests.support.mcp_servers import EVERYTHING, PY_SERVER, approve_project_servers, require_reference_servers
from tests.support.processes import gone_within
from tests.support.terminal import PROMPT, leave_repl, send_line, spawn_repl


@pytest.fixture
def reference_servers() -> None:
    require_reference_servers()


@pytest.mark.usefixtures("reference_servers")
def test_mcp_shows_servers_and_says_when_one_connects_or_fails_later(llm_server: LLMServer, tmp_path: Path) -> None:
    marker = f"hive-pty-{secrets.token_hex(4)}"
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "plugins.yaml").write_text(
        "plugins:\n"
        f"  everything:\n    command: {EVERYTHING}\n    args: [stdio, {marker}]\n"
        f"  slow:\n    command: {sys.executable}\n    args: [{PY_SERVER}, --hang-at-start, --marker, {marker}]\n"
        "    startup_timeout: 3\n"
    )
    approve_project_servers(tmp_path)
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/mcp")
    child.expect("Starting the MCP servers")
    child.expect("everything")
    child.expect("slow")
    child.expect(PROMPT)
    # Both come later, while the prompt waits: one connects, the other misses its deadline.
    child.expect("MCP server everything connected \\(\\d+ tools\\)")
    child.expect("MCP server slow failed: did not connect within 3 s")
    send_line(child, "/mcp")
    child.expect("everything\\S*  ready · stdio · \\d+ tools")
    child.expect("tools: echo, ")
    child.expect("slow\\S*  failed · stdio · 0 tools")
    child.expect("did not connect within 3 s")
    child.expect(PROMPT)
    send_line(child, "/mcp everything")
    child.expect("get-sum  ")
    child.expect(PROMPT)
    send_line(child, "/mcp ghost")
    child.expect("No MCP server ghost; configured: everything, slow")
    child.expect(PROMPT)
    leave_repl(child)
    assert gone_within(marker, 10)


def test_mcp_without_servers_says_how_to_add_one(llm_server: LLMServer, tmp_path: Path) -> None:
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/help")
    child.expect("/mcp")
    child.expect("the MCP servers' status and tools")
    child.expect(PROMPT)
    send_line(child, "/mcp")
    child.expect("No MCP servers configured. Add one: hive mcp add NAME -- COMMAND ARGS...")
    child.expect(PROMPT)
    leave_repl(child)


def test_mcp_says_when_the_settings_switch_mcp_off(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text("mcp:\n  enabled: false\n")
    (tmp_path / ".ironhive" / "plugins.yaml").write_text(
        "plugins:\n  py:\n    command: sh\n    args: [-c, 'touch ran']\n"
    )
    approve_project_servers(tmp_path)
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/mcp")
    child.expect_exact("MCP is switched off in the settings (mcp.enabled: false)")
    child.expect(PROMPT)
    leave_repl(child)
    assert not (tmp_path / "ran").exists()


@pytest.mark.usefixtures("reference_servers")
def test_a_prompt_is_a_slash_command_and_a_resource_an_attachment(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "plugins.yaml").write_text(
        f"plugins:\n  everything:\n    command: {EVERYTHING}\n    args: [stdio]\n"
    )
    approve_project_servers(tmp_path)
    llm_server.script(text("Sunny."), text("It is about the architecture."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/mcp__everything__args-prompt")
    child.expect("prompt 'args-prompt' needs city \\(usage: <city> \\[state\\]\\)")
    child.expect(PROMPT)
    send_line(child, "/mcp")
    child.expect("/mcp__everything__args-prompt")
    child.expect(PROMPT)
    child.send("/mcp__everything__args\t")  # Tab completes the prompt's command
    send_line(child, " Paris")
    child.expect("Sunny.")
    child.expect(PROMPT)
    send_line(
        child, "what is in @everything:demo://resource/static/document/architecture.md and @everything:demo://nope"
    )
    child.expect("@everything:demo://nope: not attached")
    child.expect("It is about the architecture.")
    child.expect(PROMPT)
    leave_repl(child)
    first, second = (request.messages[-1]["content"] for request in llm_server.chat_requests[:2])
    assert first == "What's weather in Paris?"
    assert second.startswith("what is in @everything:")
    assert '<resource server="everything" uri="demo://resource/static/document/architecture.md">' in second


def test_a_project_server_not_yet_approved_is_not_started_until_approved_in_the_repl(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"helper": {"command": "sh", "args": ["-c", "touch ran"]}}}')
    child = spawn_repl(llm_server, tmp_path)
    child.expect("is not trusted")
    child.expect_exact("MCP server helper (.mcp.json): sh -c 'touch ran'")
    child.expect("hive trust")
    send_line(child, "/mcp")
    child.expect("helper\\S*  awaiting approval · stdio · 0 tools")
    child.expect("not started: .mcp.json is the project's own file")
    child.expect("run: /mcp approve helper")
    child.expect(PROMPT)
    assert not (tmp_path / "ran").exists()
    send_line(child, "/mcp approve")
    child.expect("helper: sh -c 'touch ran'")
    child.expect(PROMPT)
    send_line(child, "/mcp approve helper")
    child.expect("Approved MCP server helper")
    child.expect(PROMPT)
    deadline = time.monotonic() + 30  # a failure guard: the running session's watcher starts it
    while not (tmp_path / "ran").exists():
        assert time.monotonic() < deadline, "the approved server did not start"
        time.sleep(0.05)
    leave_repl(child)
