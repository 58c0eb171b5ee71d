"""A project's own MCP servers start only once the user approved them as they are; the user's own need nothing."""

from __future__ import annotations

import json
from pathlib import Path

from engine.mcp.approvals import approvals_file, approve, revoke
from engine.mcp.config import McpServers, ServerConfig, load_servers
from engine.mcp.options import McpOptions
from engine.paths import user_config_dir


def write_project(root: Path, *, command: str = "helper-server", timeout: int = 10) -> Path:
    (root / ".ironhive").mkdir(parents=True, exist_ok=True)
    (root / ".ironhive" / "plugins.yaml").write_text(
        f"plugins:\n  local:\n    command: {command}\n    args: [--serve]\n    startup_timeout: {timeout}\n"
    )
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"shared": {"command": "npx", "args": ["x-server"]}}}))
    return root


def by_name(servers: McpServers) -> dict[str, ServerConfig]:
    return {server.name: server for server in servers.servers}


def test_the_projects_servers_wait_for_approval_and_say_how_to_give_it(tmp_path: Path) -> None:
    found = by_name(load_servers(write_project(tmp_path)))

    for name in ("local", "shared"):
        assert found[name].awaiting_approval
        assert f"hive mcp approve {name}" in str(found[name].problem)
    assert ".mcp.json is the project's own file" in str(found["shared"].problem)


def test_the_users_own_servers_need_no_approval(tmp_path: Path) -> None:
    user_config_dir().mkdir(parents=True)
    (user_config_dir() / "plugins.yaml").write_text("plugins:\n  mine:\n    command: my-server\n")

    mine = by_name(load_servers(tmp_path))["mine"]

    assert not mine.awaiting_approval and mine.problem is None


def test_an_approved_server_starts_until_what_it_runs_changes(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    approve(root, [by_name(load_servers(root))["local"]])

    found = by_name(load_servers(root))
    assert not found["local"].awaiting_approval and found["local"].problem is None
    assert found["shared"].awaiting_approval  # approving one approves only that one

    write_project(root, timeout=30)  # a timeout is not what runs: the approval holds
    assert not by_name(load_servers(root, McpOptions(tool_timeout=99)))["local"].awaiting_approval

    write_project(root, command="other-server")
    assert by_name(load_servers(root))["local"].awaiting_approval


def test_an_approval_holds_for_its_project_only(tmp_path: Path) -> None:
    first, second = write_project(tmp_path / "first-clone"), write_project(tmp_path / "second-clone")
    approve(first, load_servers(first).servers)

    assert not any(server.awaiting_approval for server in load_servers(first).servers)
    assert all(server.awaiting_approval for server in load_servers(second).servers)


def test_a_broken_approvals_file_approves_nothing(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    approve(root, load_servers(root).servers)
    approvals_file().write_text("{not json")

    assert all(server.awaiting_approval for server in load_servers(root).servers)
    approve(root, load_servers(root).servers)  # and approving again writes a good file
    assert not any(server.awaiting_approval for server in load_servers(root).servers)


def test_revoking_forgets_this_projects_approvals_only(tmp_path: Path) -> None:
    first, second = write_project(tmp_path / "first-clone"), write_project(tmp_path / "second-clone")
    approve(first, load_servers(first).servers)
    approve(second, load_servers(second).servers)

    assert sorted(revoke(first)) == ["local", "shared"]
    assert revoke(first, ["local"]) == []  # nothing left to take back

    assert all(server.awaiting_approval for server in load_servers(first).servers)
    assert not any(server.awaiting_approval for server in load_servers(second).servers)


def script_project(root: Path, args: str = "[srv.py]", env: str = "{}") -> Path:
    (root / ".ironhive").mkdir(parents=True, exist_ok=True)
    (root / ".ironhive" / "plugins.yaml").write_text(
        f"plugins:\n  local:\n    command: python3\n    args: {args}\n    env: {env}\n"
    )
    if not (root / "srv.py").exists():
        (root / "srv.py").write_text("print('serving')\n")
    return root


def test_an_approval_covers_the_script_the_server_runs(tmp_path: Path) -> None:
    root = script_project(tmp_path)
    approve(root, load_servers(root).servers)
    assert not by_name(load_servers(root))["local"].awaiting_approval

    (root / "srv.py").write_text("print('serving something else')\n")

    changed = by_name(load_servers(root))["local"]
    assert changed.awaiting_approval
    assert "srv.py changed since you approved it" in str(changed.problem)
    assert "hive mcp approve local" in str(changed.problem)


def test_an_approval_covers_the_entry_as_written_so_a_rotated_token_keeps_it(tmp_path: Path) -> None:
    root = script_project(tmp_path, args="[srv.py, '--token=${SOME_TOKEN}']", env="{KEY: '${SOME_TOKEN}'}")
    before = by_name(load_servers(root, environ={"SOME_TOKEN": "first-value"}))["local"]
    approve(root, [before], allow={"local": ["SOME_TOKEN"]})

    after = by_name(load_servers(root, environ={"SOME_TOKEN": "second-value"}))["local"]

    assert not after.awaiting_approval
    assert after.args == ("srv.py", "--token=second-value") and after.env == {"KEY": "second-value"}
    assert after.fingerprint != before.fingerprint  # a running server restarts with the new value
    assert after.launch_fingerprint == before.launch_fingerprint
    assert after.as_written.args == ("srv.py", "--token=${SOME_TOKEN}")
    assert after.as_written.variables == ("SOME_TOKEN",)
    assert "second-value" not in repr(after) and "first-value" not in repr(before)


def test_an_approval_in_the_old_format_asks_again_and_says_why(tmp_path: Path) -> None:
    root = script_project(tmp_path)
    approvals_file().parent.mkdir(parents=True, exist_ok=True)
    approvals_file().write_text(json.dumps({"projects": {str(root.resolve()): {"local": "0" * 64}}}))

    waiting = by_name(load_servers(root))["local"]

    assert waiting.awaiting_approval
    assert "older format that did not pin the files it runs" in str(waiting.problem)
    approve(root, [waiting])
    assert not by_name(load_servers(root))["local"].awaiting_approval


def test_a_changed_entry_with_the_same_files_says_the_entry_changed(tmp_path: Path) -> None:
    root = script_project(tmp_path)
    approve(root, load_servers(root).servers)

    script_project(root, args="[srv.py, --verbose]")

    assert "entry changed since you approved it" in str(by_name(load_servers(root))["local"].problem)
