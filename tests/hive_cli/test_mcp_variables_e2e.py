"""A project server's entry shows variable names, never their values; its child sees only what the entry declares."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_hive
from tests.support.mcp_servers import (
    EVERYTHING,
    PY_SERVER,
    approve_project_servers,
    free_port,
    require_reference_servers,
)


def token() -> str:
    return f"tok-{secrets.token_hex(8)}"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "clone"
    (root / ".ironhive").mkdir(parents=True)
    (root / ".ironhive" / "plugins.yaml").write_text(
        "plugins:\n"
        "  py:\n"
        f"    command: {sys.executable}\n"
        f"    args: [{PY_SERVER}, --marker, '${{SOME_TOKEN}}']\n"
        "    env: {API_TOKEN: '${SOME_TOKEN}'}\n"
        "  web:\n"
        "    transport: http\n"
        f"    url: 'http://127.0.0.1:{free_port()}/mcp?key=${{SOME_TOKEN}}'\n"
        "    headers: {Authorization: 'Bearer ${SOME_TOKEN}'}\n"
        "  leaky:\n"
        f"    command: {sys.executable}\n"
        f"    args: ['-c', {json.dumps(LEAKS)}, '${{SOME_TOKEN}}']\n"
    )
    return root


# A server that prints its token as it fails: hive's report of its stderr shows the variable's name instead.
LEAKS = "import sys; sys.stderr.write('rejected token ' + sys.argv[1] + chr(10)); sys.exit(1)"


def hive(root: Path, value: str, *args: str) -> str:
    """Run ``hive ARGS`` with SOME_TOKEN set to ``value``; everything it printed."""
    done = run_hive(*args, "-C", str(root), timeout=60, SOME_TOKEN=value)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout + done.stderr


def test_what_a_person_is_shown_names_the_variable_never_its_value(tmp_path: Path) -> None:
    root, value = project(tmp_path), token()

    listed = hive(root, value, "mcp", "approve")
    assert f"py: {sys.executable} {PY_SERVER} --marker '${{SOME_TOKEN}}'" in listed
    assert "environment: API_TOKEN" in listed and "headers: Authorization" in listed
    assert (
        "wants $SOME_TOKEN from your environment, not passed: allow with hive mcp approve py --env SOME_TOKEN" in listed
    )
    assert "web: http http://127.0.0.1:" in listed and "/mcp?key=${SOME_TOKEN}  [" in listed
    shown = [
        listed,
        hive(root, value, "mcp", "list"),
        hive(root, value, "mcp", "doctor"),
        hive(root, value, "mcp", "approve", "--all"),
        hive(root, value, "mcp", "approve", "py", "web", "leaky", "--env", "SOME_TOKEN"),
        hive(root, value, "mcp", "list"),
        hive(root, value, "mcp", "list", "--format", "json"),
        hive(root, value, "mcp", "doctor", "--format", "json"),
        hive(root, value, "mcp", "doctor"),
    ]
    assert "runs: " in shown[1] and "${SOME_TOKEN}" in shown[1]  # listed while it waited for approval
    assert "uses $SOME_TOKEN from your environment" in shown[4]
    assert "cannot reach http://127.0.0.1:" in shown[5] and "/mcp?key=${SOME_TOKEN}" in shown[5]
    assert "rejected token [redacted: $SOME_TOKEN]" in shown[-1]
    for output in shown:
        assert value not in output


def test_a_rotated_token_keeps_the_approval(tmp_path: Path) -> None:
    root = project(tmp_path)
    hive(root, token(), "mcp", "approve", "--all")
    hive(root, token(), "mcp", "approve", "py", "--env", "SOME_TOKEN")

    rotated = hive(root, token(), "mcp", "approve")
    listed = json.loads(run_hive("mcp", "list", "--format", "json", "-C", str(root), SOME_TOKEN=token()).stdout)

    assert rotated.startswith("No MCP server of this project is waiting for approval.")
    assert {s["name"]: s["status"] for s in listed["servers"]}["py"] == "ready"


def test_a_project_server_sees_its_declared_environment_not_hives(tmp_path: Path) -> None:
    require_reference_servers()
    root = tmp_path / "clone"
    (root / ".ironhive").mkdir(parents=True)
    (root / ".ironhive" / "plugins.yaml").write_text(
        f"plugins:\n  everything:\n    command: {EVERYTHING}\n    args: [stdio]\n    env: {{DECLARED: declared-value}}\n"
    )
    approve_project_servers(root)
    canary = token()

    done = run_hive("mcp", "call", "everything", "get-env", "-C", str(root), timeout=60, HIVE_TEST_CANARY_SECRET=canary)

    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["DECLARED"] == "declared-value" and "PATH" in seen
    assert "HIVE_TEST_CANARY_SECRET" not in seen and canary not in done.stdout
    assert not {"HIVE_HOME", "PYTHONPATH"} & set(seen)  # hive's own variables stay with hive


@pytest.fixture(autouse=True)
def _no_token_in_the_test_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOME_TOKEN", raising=False)
