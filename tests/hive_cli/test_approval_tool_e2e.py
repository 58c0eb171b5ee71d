"""`hive run --approval-tool SERVER:TOOL`: each Ask is put to a real MCP server's tool, which allows or denies it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.mcp_servers import approve_project_servers
from tests.support.trust import trust

APPROVAL_SERVER = Path(__file__).parents[1] / "support" / "approval_mcp_server.py"


def project(root: Path, log: Path) -> Path:
    (root / ".ironhive").mkdir(parents=True)
    (root / ".ironhive" / "plugins.yaml").write_text(
        f"plugins:\n  gate:\n    command: {sys.executable}\n    args: ['{APPROVAL_SERVER}', '{log}']\n"
    )
    approve_project_servers(root)
    trust(root)
    return root


def hive_run(server: LLMServer, workdir: Path, *extra: str) -> dict[str, Any]:
    done = run_hive(
        "run", "write notes", "-o", "json", "--model", "openai/test-model", "--api-base", server.base_url,
        "--api-key", "sk-test", "-C", str(workdir), *extra,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_tool_allows_one_call_and_denies_another(llm_server: LLMServer, tmp_path: Path) -> None:
    log = tmp_path / "asked.jsonl"
    root = project(tmp_path / "project", log)
    llm_server.script(
        tool_calls(
            call("write_file", {"path": "notes.txt", "content": "plain"}, id="plain"),
            call("write_file", {"path": "other.txt", "content": "a secret"}, id="secret"),
        ),
        text("done"),
    )
    result = hive_run(llm_server, root, "--approval-tool", "gate:decide")

    calls = {c["call_id"]: c for c in result["tool_calls"]}
    assert calls["plain"]["success"] is True and (root / "notes.txt").read_text() == "plain"
    assert calls["secret"]["success"] is False and "no secrets, says the approval tool" in calls["secret"]["output"]
    assert not (root / "other.txt").exists()
    asked = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(a["tool_name"], a["tool_use_id"]) for a in asked] == [("write_file", "plain"), ("write_file", "secret")]
    assert asked[0]["input"] == {"path": "notes.txt", "content": "plain"}


def test_an_approval_tool_no_server_offers_is_a_usage_error(llm_server: LLMServer, tmp_path: Path) -> None:
    root = project(tmp_path / "project", tmp_path / "asked.jsonl")
    for option, said in (("gate:nope", "no such MCP tool (mcp__gate__nope)"), ("gate", "give SERVER:TOOL")):
        done = run_hive(
            "run", "x", "--model", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(root),
            "--approval-tool", option,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert said in done.stderr and "Traceback" not in done.stderr
    assert llm_server.chat_requests == []
