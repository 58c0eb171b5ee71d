"""Hot reload while a session's servers run: add, break, fix, change and remove entries of plugins.yaml."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import yaml

from engine.config.validation import Invalid
from engine.mcp.approvals import approve, revoke
from engine.mcp.config import McpServers, load_servers, resolve_entry
from engine.mcp.entries import plugins_file
from engine.mcp.manager import McpManager
from engine.mcp.options import McpOptions
from tests.support.mcp_servers import EVERYTHING
from tests.support.processes import gone_within


def entry(name: str, *args: str) -> str:
    return f"  {name}:\n    command: {EVERYTHING}\n    args: [stdio{''.join(', ' + a for a in args)}]\n"


def write(path: Path, text: str, *, atomic: bool = False) -> None:
    """Write ``text`` to the project's plugins.yaml, approving its servers first (as the person would)."""
    with contextlib.suppress(yaml.YAMLError, Invalid):
        root = path.parent.parent
        entries = plugins_file(yaml.safe_load(text)).plugins
        approve(root, [resolve_entry(name, e, path, root, McpOptions(), os.environ) for name, e in entries.items()])
    if atomic:  # as editors save: a new file renamed over the old one
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(text)
        os.replace(temporary, path)
    else:
        path.write_text(text)


async def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30  # a failure guard only
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def watching(root: Path, servers: McpServers | None = None) -> AsyncIterator[McpManager]:
    """A started manager reloading ``root``'s configuration (``servers``: as read earlier; default: now)."""
    options = McpOptions()
    servers = load_servers(root, options) if servers is None else servers
    manager = McpManager(servers, root / "logs", reload_from=(root, options))
    await manager.start()
    try:
        yield manager
    finally:
        await manager.stop()


def ready(manager: McpManager) -> dict[str, str | None]:
    return {s.name: s.state for s in manager.status()}


def test_a_running_session_follows_its_plugins_file(tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    plugins = tmp_path / ".ironhive" / "plugins.yaml"
    marker = f"hive-reload-{secrets.token_hex(6)}"
    write(plugins, "plugins:\n" + entry("a", marker))

    async def body() -> None:
        async with watching(tmp_path) as manager:
            await asyncio.wait_for(manager.wait_ready(), 10)
            first_a = manager.connection("a")
            changes: list[dict[str, str | None]] = []
            manager.listen(lambda: changes.append(ready(manager)))

            write(plugins, "plugins:\n" + entry("a", marker) + entry("b"))
            await until(lambda: ready(manager) == {"a": "ready", "b": "ready"}, "b to start")
            assert manager.connection("a") is first_a  # unchanged: not restarted
            assert "mcp__b__echo" in {s.name for s in manager.specs()}
            assert changes[-1] == {"a": "ready", "b": "ready"} and {"a": "ready", "b": "starting"} in changes

            write(plugins, "plugins:\n  a: {comand: x}\n", atomic=True)
            await until(lambda: manager.reload_error is not None, "the broken file to be reported")
            assert "plugins.a.comand" in str(manager.reload_error)
            assert ready(manager) == {"a": "ready", "b": "ready"}  # the old configuration keeps running

            write(plugins, "plugins:\n" + entry("b", "marker-changed"), atomic=True)
            await until(lambda: set(ready(manager)) == {"b"} and ready(manager)["b"] == "ready", "a to go, b anew")
            assert manager.reload_error is None
            assert "mcp__a__echo" not in {s.name for s in manager.specs()}
            assert manager.connection("b") is not None and manager.connection("b").config.args[-1] == "marker-changed"
            assert await asyncio.to_thread(gone_within, marker, 5), "the removed server is still running"

    asyncio.run(body())


def test_a_server_approved_while_the_session_runs_starts_then(tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    plugins = tmp_path / ".ironhive" / "plugins.yaml"
    plugins.write_text("plugins:\n" + entry("a"))  # not approved

    async def body() -> None:
        async with watching(tmp_path) as manager:
            await asyncio.wait_for(manager.wait_ready(), 10)
            assert ready(manager) == {"a": "awaiting_approval"}
            assert "mcp__a__echo" not in {s.name for s in manager.specs()}

            approve(tmp_path, load_servers(tmp_path).servers)  # hive mcp approve, from another terminal
            await until(lambda: ready(manager) == {"a": "ready"}, "a to start once approved")
            assert "mcp__a__echo" in {s.name for s in manager.specs()}

    asyncio.run(body())


def test_a_server_approved_before_the_session_opens_starts_though_its_configuration_was_read_earlier(
    tmp_path: Path,
) -> None:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "plugins.yaml").write_text("plugins:\n" + entry("a"))
    read_at_start = load_servers(tmp_path)  # as the REPL reads it while the person types
    approve(tmp_path, read_at_start.servers)  # hive mcp approve a, before the first message opens the session

    async def body() -> None:
        async with watching(tmp_path, read_at_start) as manager:
            await until(lambda: ready(manager) == {"a": "ready"}, "a to start")

    asyncio.run(body())


def test_a_server_whose_approval_is_taken_back_stops(tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    marker = f"hive-revoke-{secrets.token_hex(6)}"
    write(tmp_path / ".ironhive" / "plugins.yaml", "plugins:\n" + entry("a", marker))  # approved as written

    async def body() -> None:
        async with watching(tmp_path) as manager:
            await until(lambda: ready(manager) == {"a": "ready"}, "a to start")
            assert revoke(tmp_path, ["a"]) == ["a"]  # hive mcp revoke a
            await until(lambda: ready(manager) == {"a": "awaiting_approval"}, "a to stop")
            assert await asyncio.to_thread(gone_within, marker, 5), "the revoked server is still running"

    asyncio.run(body())
