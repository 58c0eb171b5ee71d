"""The roots hive offers MCP servers (``roots/list``), asked by real servers of both protocol eras."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from pathlib import Path

import pytest

from engine.events import ToolCall
from engine.mcp.config import McpServers, ServerConfig
from engine.mcp.manager import McpManager
from engine.mcp.roots import Root, offered_roots
from engine.sandbox.options import SandboxOptions
from engine.tools.base import ToolContext, ToolResult
from tests.support.mcp_servers import EVERYTHING, FILESYSTEM, python_server, require_reference_servers, stdio


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A repository (its root holds ``.git``) and a folder outside it."""
    project, extra = tmp_path / "repo", tmp_path / "extra"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    extra.mkdir()
    return project.resolve(), extra.resolve()


def test_the_project_root_comes_first_then_each_writable_root_once(folders: tuple[Path, Path]) -> None:
    project, extra = folders
    options = SandboxOptions(writable_roots=(extra, project, extra))
    roots = offered_roots(project / "src", options)
    assert roots == (Root(path=project, name="project repo"), Root(path=extra, name="writable root extra"))
    assert [root.uri for root in roots] == [f"file://{project}", f"file://{extra}"]
    assert offered_roots(project / "src", None) == (Root(path=project, name="project repo"),)


async def _call(
    servers: tuple[ServerConfig, ...], tool: str, roots: tuple[Root, ...], tmp_path: Path, after_log: str = ""
) -> ToolResult:
    """Call ``tool`` once the servers are ready (and, with ``after_log``, once the server's log shows that text)."""
    manager = McpManager(McpServers(servers=servers), tmp_path / "logs", roots=roots)
    await manager.start()
    try:
        await asyncio.wait_for(manager.wait_ready(), 20)
        if after_log:
            await asyncio.to_thread(_wait_logged, tmp_path / "logs" / f"{servers[0].name}.log", after_log)
        ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path)
        return await manager.call(ToolCall(id=secrets.token_hex(4), name=tool, arguments={}), ctx)
    finally:
        await manager.stop()


def _wait_logged(log: Path, text: str, guard_s: float = 20) -> None:
    """Wait until the server's log shows ``text`` (the guard only ends a test whose server never says it)."""
    deadline = time.monotonic() + guard_s
    while text not in log.read_text(encoding="utf-8", errors="replace") and time.monotonic() < deadline:
        time.sleep(0.02)


def test_a_2026_era_server_gets_the_roots_as_file_uris_with_names(folders: tuple[Path, Path], tmp_path: Path) -> None:
    project, extra = folders
    roots = offered_roots(project, SandboxOptions(writable_roots=(extra,)))
    result = asyncio.run(_call((python_server(),), "mcp__py__roots", roots, tmp_path))
    assert result.success is True, result.output
    assert json.loads(result.output) == [
        {"uri": f"file://{project}", "name": "project repo"},
        {"uri": f"file://{extra}", "name": "writable root extra"},
    ]


def test_without_roots_hive_declares_no_roots_capability(tmp_path: Path) -> None:
    result = asyncio.run(_call((python_server(),), "mcp__py__roots", (), tmp_path))
    assert result.success is False and "roots capability" in result.output, result.output


def test_a_2025_era_server_asks_roots_list_and_gets_the_same_roots(folders: tuple[Path, Path], tmp_path: Path) -> None:
    require_reference_servers()
    project, extra = folders
    roots = offered_roots(project, SandboxOptions(writable_roots=(extra,)))
    result = asyncio.run(
        _call((stdio("everything", EVERYTHING, "stdio"),), "mcp__everything__get-roots-list", roots, tmp_path)
    )
    assert result.success is True, result.output
    assert "Current MCP Roots (2 total)" in result.output
    assert f"1. project repo\n   URI: file://{project}" in result.output
    assert f"2. writable root extra\n   URI: file://{extra}" in result.output


def test_the_filesystem_server_takes_hives_roots_in_place_of_its_own_folders(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    require_reference_servers()
    project, _extra = folders
    own = tmp_path / "own"
    own.mkdir()
    server = stdio("fs", FILESYSTEM, str(own))
    roots = offered_roots(project, None)
    taken = "Updated allowed directories from MCP roots"  # the server asks for the roots after it connected
    result = asyncio.run(_call((server,), "mcp__fs__list_allowed_directories", roots, tmp_path, after_log=taken))
    assert result.success is True, result.output
    assert str(project) in result.output and str(own) not in result.output
