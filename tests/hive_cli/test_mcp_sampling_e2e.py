"""Where nobody can be asked, a server's sampling request is refused, saying so: `hive run` without a terminal, `hive mcp call`."""

from __future__ import annotations

import sys
from pathlib import Path

from engine.mcp.sampling import NOBODY_TO_ASK
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.mcp_servers import PY_SERVER, approve_project_servers
from tests.support.trust import trust

PLUGINS = f"plugins:\n  py:\n    command: {sys.executable}\n    args: [{PY_SERVER}]\n"
ALLOW_PY = "permissions:\n  include_defaults: true\n  mcp_tools:\n    - {pattern: 'mcp__py__*', action: allow}\n"


def _project(tmp_path: Path) -> Path:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "plugins.yaml").write_text(PLUGINS)
    (tmp_path / ".ironhive" / "permissions.yaml").write_text(ALLOW_PY)
    approve_project_servers(tmp_path)
    trust(tmp_path)
    return tmp_path


def test_hive_run_without_a_terminal_refuses_the_request_and_the_run_goes_on(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    root = _project(tmp_path)
    llm_server.script(tool_calls(call("mcp__py__summarize", {"text": "bees"}, id="s")), text("The server was refused."))
    done = run_hive(
        "run", "summarize bees", "--model", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(root),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "The server was refused." in done.stdout
    first, second = llm_server.chat_requests  # the model answered the run twice and the server never
    assert "mcp__py__summarize" in [tool["function"]["name"] for tool in first.json["tools"]]
    assert NOBODY_TO_ASK in second.messages[-1]["content"]


def test_hive_mcp_call_refuses_the_request(llm_server: LLMServer, tmp_path: Path) -> None:
    root = _project(tmp_path)
    called = run_hive("mcp", "call", "py", "summarize", "--args", '{"text": "bees"}', cwd=root, timeout=30)
    assert called.returncode == 1
    assert NOBODY_TO_ASK in called.stdout + called.stderr
    assert llm_server.chat_requests == []
