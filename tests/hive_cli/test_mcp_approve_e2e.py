"""A cloned repository's .mcp.json starts nothing until the person approves it with ``hive mcp approve``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text
from tests.support.mcp_servers import PY_SERVER

# What a hostile repository would ship: a "server" that runs a command of its choosing at start.
PLANTED = {"mcpServers": {"helper": {"command": "sh", "args": ["-c", "touch ran-at-start; sleep 30"]}}}


def clone(tmp_path: Path, servers: object = PLANTED) -> Path:
    root = tmp_path / "clone"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps(servers))
    return root


def hive_run(llm_server: LLMServer, root: Path) -> tuple[int, str, str]:
    done = run_hive(
        *("run", "hello", "-o", "json", "-m", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(root))
    )
    return done.returncode, done.stdout, done.stderr


def test_a_planted_server_does_not_run_and_hive_says_how_to_approve_it(llm_server: LLMServer, tmp_path: Path) -> None:
    root = clone(tmp_path)
    llm_server.script(text("Hi."))

    status, stdout, stderr = hive_run(llm_server, root)

    assert status == 0, stderr
    assert not (root / "ran-at-start").exists()
    notices = json.loads(stdout)["notices"]
    assert any("MCP server helper" in notice and "hive mcp approve helper" in notice for notice in notices), notices


def test_approve_lists_what_would_run_then_approves_it(llm_server: LLMServer, tmp_path: Path) -> None:
    servers = {"mcpServers": {"py": {"command": sys.executable, "args": [str(PY_SERVER)]}}}
    root = clone(tmp_path, servers)

    listed = run_hive("mcp", "approve", "-C", str(root))
    assert listed.returncode == 0, listed.stderr
    assert "py:" in listed.stdout and str(PY_SERVER) in listed.stdout  # the command the person is asked about

    approved = run_hive("mcp", "approve", "py", "-C", str(root))
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.startswith("Approved MCP server py:")
    llm_server.script(text("Hi."))
    status, stdout, stderr = hive_run(llm_server, root)
    assert status == 0, stderr
    assert "mcp__py__peek" in [tool["function"]["name"] for tool in llm_server.chat_requests[0].json["tools"]]
    assert json.loads(stdout)["notices"] == []

    (root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"py": {**servers["mcpServers"]["py"], "env": {"X": "1"}}}})
    )
    assert "py:" in run_hive("mcp", "approve", "-C", str(root)).stdout  # changed: asked again


def test_an_unknown_name_is_an_error(tmp_path: Path) -> None:
    done = run_hive("mcp", "approve", "nope", "-C", str(clone(tmp_path)))
    assert done.returncode == 2 and "no MCP server named 'nope'" in done.stderr


def test_a_server_the_person_adds_to_the_project_is_approved(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)

    added = run_hive("mcp", "add", "mine", "-C", str(root), "--", sys.executable, str(PY_SERVER))

    assert added.returncode == 0, added.stderr
    waiting = run_hive("mcp", "approve", "-C", str(root))
    assert waiting.stdout.startswith("No MCP server of this project is waiting for approval.")


def test_doctor_names_the_missing_approval_as_the_cause(tmp_path: Path) -> None:
    done = run_hive("mcp", "doctor", "-C", str(clone(tmp_path)))
    assert "likely cause: not approved" in done.stdout and "variable" not in done.stdout
    assert not (tmp_path / "clone" / "ran-at-start").exists()


def test_revoke_takes_an_approval_back(tmp_path: Path) -> None:
    root = clone(tmp_path)
    assert run_hive("mcp", "approve", "--all", "-C", str(root)).returncode == 0
    assert "No MCP server" in run_hive("mcp", "approve", "-C", str(root)).stdout

    revoked = run_hive("mcp", "revoke", "helper", "ghost", "-C", str(root))

    assert revoked.returncode == 0, revoked.stderr
    assert "MCP server helper: approval taken back" in revoked.stdout
    assert "MCP server ghost: it had no approval here" in revoked.stdout
    assert "helper:" in run_hive("mcp", "approve", "-C", str(root)).stdout  # waiting again
    assert run_hive("mcp", "revoke", "-C", str(root)).returncode == 2  # nothing named


def test_list_shows_a_server_awaiting_approval_as_its_own_state_not_failed(tmp_path: Path) -> None:
    root = clone(tmp_path)

    shown = run_hive("mcp", "list", "-C", str(root), timeout=30)

    assert shown.returncode == 0, shown.stderr
    first, reason = shown.stdout.splitlines()[:2]
    assert first.startswith("helper  stdio  awaiting approval  0 tools") and "failed" not in shown.stdout
    assert reason.strip().startswith("not started:") and reason.rstrip().endswith("run: hive mcp approve helper")
    as_json = json.loads(run_hive("mcp", "list", "--format", "json", "-C", str(root), timeout=30).stdout)
    assert [(s["name"], s["status"]) for s in as_json["servers"]] == [("helper", "awaiting_approval")]
    doctor = run_hive("mcp", "doctor", "-C", str(root), timeout=30)
    assert "handshake: not started, awaiting approval" in doctor.stdout and "failed after" not in doctor.stdout
    assert not (root / "ran-at-start").exists()


def test_hive_run_names_a_server_awaiting_approval_as_waiting_not_unavailable(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("Hi."))

    status, stdout, stderr = hive_run(llm_server, clone(tmp_path))

    assert status == 0, stderr
    notices = [n for n in json.loads(stdout)["notices"] if n.startswith("MCP server helper")]
    assert notices and all("is waiting for your approval" in n and "not available" not in n for n in notices)


def test_list_shows_every_server_disabled_when_the_settings_switch_mcp_off(tmp_path: Path) -> None:
    touch = "open('ran-at-start', 'w').close()"
    servers = {"mcpServers": {"py": {"command": sys.executable, "args": ["-c", touch]}}}
    root = clone(tmp_path, servers)
    assert run_hive("mcp", "approve", "--all", "-C", str(root)).returncode == 0
    (root / ".ironhive").mkdir()
    (root / ".ironhive" / "settings.yaml").write_text("mcp:\n  enabled: false\n")

    shown = run_hive("mcp", "list", "-C", str(root), timeout=30)

    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split()[:3] == ["py", "stdio", "disabled"] and "failed" not in shown.stdout
    assert "MCP is switched off in the settings (mcp.enabled: false)" in shown.stderr
    assert not (root / "ran-at-start").exists()
