"""A server's elicitation request during ``hive run`` and ``hive mcp call``: real hive, the test server, the scripted model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.mcp_servers import PY_SERVER, trusted_project_with


def project(tmp_path: Path) -> Path:
    return trusted_project_with(tmp_path, "py", sys.executable, PY_SERVER)


def run_calling(llm_server: LLMServer, root: Path, tool: str, *extra: str) -> tuple[str, dict[str, object]]:
    """``hive run`` whose model calls ``tool`` once; its stderr and what the tool returned to the model."""
    llm_server.script(tool_calls(call(f"mcp__py__{tool}", {}, id="ask")), text("done"))
    done = run_hive(
        "run", "ask me", "--model", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(root), *extra
    )
    assert done.returncode == 0, done.stderr
    result = llm_server.chat_requests[1].messages[-1]["content"]
    return done.stderr, json.loads(result)


def test_hive_run_declines_by_default_and_says_so_on_stderr(llm_server: LLMServer, tmp_path: Path) -> None:
    stderr, outcome = run_calling(llm_server, project(tmp_path), "ask")
    assert outcome == {"action": "decline", "content": None}
    assert 'hive: server py asked for name, age ("Who are you?\\x1b[2K (the server asks)")' in stderr
    assert "declined: this session declines every request (--elicitation decline)" in stderr
    assert "\x1b[2K" not in stderr  # the server's text is shown, never obeyed


def test_hive_run_with_elicitation_defaults_accepts_a_form_of_defaults(llm_server: LLMServer, tmp_path: Path) -> None:
    stderr, outcome = run_calling(llm_server, project(tmp_path), "choose", "--elicitation", "defaults")
    assert outcome == {"action": "accept", "content": {"colour": "green", "loud": False, "extras": ["salt"]}}
    assert "asked for" not in stderr


def test_elicitation_defaults_still_declines_a_form_with_a_required_field_without_default(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    stderr, outcome = run_calling(llm_server, project(tmp_path), "ask", "--elicitation", "defaults")
    assert outcome == {"action": "decline", "content": None}
    assert "declined: nobody to ask" in stderr


def test_hive_mcp_call_answers_by_its_elicitation_option(tmp_path: Path) -> None:
    root = project(tmp_path)
    declined = run_hive("mcp", "call", "py", "choose", "-C", str(root))
    assert declined.returncode == 0, declined.stderr
    assert json.loads(declined.stdout) == {"action": "decline", "content": None}
    assert "hive: server py asked for colour, loud, extras" in declined.stderr
    accepted = run_hive("mcp", "call", "py", "choose", "--elicitation", "defaults", "-C", str(root))
    assert json.loads(accepted.stdout)["action"] == "accept", accepted.stderr
