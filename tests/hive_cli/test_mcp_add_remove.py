"""`hive mcp add` and `hive mcp remove` on real files, through the real program."""

from __future__ import annotations

import os
from pathlib import Path

from engine.mcp.config import load_plugins_file
from tests.support.cli import run_hive


def project(tmp_path: Path) -> Path:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "plugins.yaml").write_text("# ours\nplugins:\n  # keep me\n  old:\n    command: x\n")
    return tmp_path


def test_add_a_stdio_and_a_url_server_then_remove_one(tmp_path: Path) -> None:
    root = project(tmp_path)
    plugins = root / ".ironhive" / "plugins.yaml"
    added = run_hive("mcp", "add", "fs", "-e", "TOKEN=${T}", "-C", str(root), "--", "npx", "-y", "server", "/tmp")
    assert added.returncode == 0, added.stderr
    assert f"Added MCP server fs (stdio: npx -y server /tmp) in {plugins}" in added.stdout
    url = run_hive(
        "mcp",
        "add",
        "web",
        "http://127.0.0.1:9/mcp",
        "-H",
        "Authorization: Bearer t",
        "-H",
        "X-Q=a=b",
        "-H",
        "X-R: c=d",
        cwd=root,
    )
    assert url.returncode == 0, url.stderr
    entries = load_plugins_file(plugins).plugins
    assert list(entries) == ["old", "fs", "web"]
    assert (entries["fs"].command, entries["fs"].args, entries["fs"].env) == (
        "npx",
        ["-y", "server", "/tmp"],
        {"TOKEN": "${T}"},
    )
    assert (entries["web"].transport, entries["web"].headers) == (
        "http",
        {"Authorization": "Bearer t", "X-Q": "a=b", "X-R": "c=d"},
    )
    assert plugins.read_text().startswith("# ours\nplugins:\n  # keep me\n  old:\n    command: x\n")
    removed = run_hive("mcp", "remove", "fs", cwd=root)
    assert removed.returncode == 0 and "Removed MCP server fs" in removed.stdout
    assert list(load_plugins_file(plugins).plugins) == ["old", "web"]


def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    root = project(tmp_path)
    before = (root / ".ironhive" / "plugins.yaml").read_text()
    cases = {
        ("add", "old", "--", "y"): "already there (use --force",
        ("add", "new", "--env", "NOEQUALS", "--", "y"): "--env 'NOEQUALS': give it as KEY=VALUE",
        ("add", "new"): "give the server's command after --",
        ("add", "new", "--transport", "sse", "--", "not-a-url"): "is not a URL",
        ("remove", "ghost"): "no MCP server named 'ghost'",
    }
    for args, message in cases.items():
        result = run_hive("mcp", *args, cwd=root)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and message in result.stderr, (args, result.stderr)
    assert (root / ".ironhive" / "plugins.yaml").read_text() == before


def test_force_replaces_and_user_scope_writes_the_user_file(tmp_path: Path) -> None:
    root = project(tmp_path)
    forced = run_hive("mcp", "add", "old", "--force", "--", "y", "z", cwd=root)
    assert forced.returncode == 0 and "Replaced MCP server old" in forced.stdout
    assert load_plugins_file(root / ".ironhive" / "plugins.yaml").plugins["old"].args == ["z"]
    user = run_hive("mcp", "add", "mine", "--scope", "user", "--", "true", cwd=root)
    assert user.returncode == 0, user.stderr
    user_file = Path(os.environ["HIVE_HOME"]) / "config" / "plugins.yaml"
    assert list(load_plugins_file(user_file).plugins) == ["mine"]
    assert run_hive("mcp", "remove", "mine", cwd=root).returncode == 0
    assert load_plugins_file(user_file).plugins == {}


def test_help_and_add_do_not_import_the_sdk(tmp_path: Path) -> None:
    from tests.engine.mcp.test_lazy_import import imported_by

    assert not imported_by("-m", "hive_cli", "--help") & {"mcp", "mcp_types", "httpx2"}
    assert not imported_by("-m", "hive_cli", "mcp", "--help") & {"mcp", "mcp_types", "httpx2"}
    root = project(tmp_path)
    assert not imported_by("-m", "hive_cli", "mcp", "add", "n", "-C", str(root), "--", "x") & {"mcp", "mcp_types"}
