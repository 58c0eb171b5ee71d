"""A session's MCP servers: started with it, waited for on request, stopped with it, settings honoured."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import pytest

from engine.capabilities import Capability
from engine.config.loader import Overrides, load_config
from engine.events import ToolCall
from engine.policy.guards import Block, CallGuard
from engine.session_open import open_session
from tests.support.mcp_servers import EVERYTHING, approve_project_servers
from tests.support.processes import gone_within
from tests.support.trust import trust

MODEL = Overrides(model="openai/test-model", api_base="http://127.0.0.1:9/v1", api_key="sk-test")


def project(tmp_path: Path, plugins: str, settings: str | None = None) -> Path:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "plugins.yaml").write_text(plugins)
    if settings is not None:
        (tmp_path / ".ironhive" / "settings.yaml").write_text(settings)
    approve_project_servers(tmp_path)
    trust(tmp_path)
    return tmp_path


def everything(name: str, marker: str = "") -> str:
    return f"  {name}:\n    command: {EVERYTHING}\n    args: [stdio{', ' + marker if marker else ''}]\n"


def test_a_session_starts_its_servers_and_stops_them_when_closed(tmp_path: Path) -> None:
    marker = f"hive-session-{secrets.token_hex(6)}"
    root = project(tmp_path, "plugins:\n" + everything("everything", marker))

    async def body() -> None:
        session = await open_session(load_config(root, MODEL, persist=False), approver=None)
        try:
            assert session.mcp is not None
            assert await session.wait_for_mcp() == ()
            (status,) = session.mcp.status()
            assert status.state == "ready" and status.source == root / ".ironhive" / "plugins.yaml"
            assert "mcp__everything__echo" in {s.name for s in session.agent.loop.toolset.specs()}
        finally:
            await session.close()

    asyncio.run(body())
    assert gone_within(marker, 5)


def test_a_session_without_servers_has_no_manager(tmp_path: Path) -> None:
    async def body() -> None:
        session = await open_session(load_config(tmp_path, MODEL, persist=False), approver=None)
        try:
            assert session.mcp is None and await session.wait_for_mcp() == ()
        finally:
            await session.close()

    asyncio.run(body())


WATCHER_TASK = "mcp:reload"
"""The name of the task that watches a session's server files (hot reload)."""


def running_task_names() -> set[str]:
    return {task.get_name() for task in asyncio.all_tasks() if not task.done()}


@pytest.mark.parametrize("hot_reload", [True, False], ids=["on", "off"])
def test_only_hot_reload_watches_the_server_files(tmp_path: Path, hot_reload: bool) -> None:
    root = project(tmp_path, "plugins:\n" + everything("a"), f"mcp:\n  hot_reload: {str(hot_reload).lower()}\n")

    async def body() -> None:
        session = await open_session(load_config(root, MODEL, persist=False), approver=None)
        try:
            await session.wait_for_mcp()
            assert (WATCHER_TASK in running_task_names()) is hot_reload
        finally:
            await session.close()

    asyncio.run(body())


def test_hot_reload_off_keeps_the_servers_the_session_started_with(tmp_path: Path) -> None:
    root = project(tmp_path, "plugins:\n" + everything("a"), "mcp:\n  hot_reload: false\n")

    async def body() -> None:
        session = await open_session(load_config(root, MODEL, persist=False), approver=None)
        try:
            assert session.mcp is not None
            await session.wait_for_mcp()
            (root / ".ironhive" / "plugins.yaml").write_text("plugins:\n" + everything("a") + everything("b"))
            # Nothing could start b: no watcher runs (the test above shows one runs when hot reload is on).
            assert WATCHER_TASK not in running_task_names()
            assert [s.name for s in session.mcp.status()] == ["a"]
        finally:
            await session.close()

    asyncio.run(body())


class BlockAll:
    name = "block-all"

    async def before(self, call: ToolCall) -> Block:
        return Block("nothing goes to MCP servers here")

    async def check(self, call: ToolCall, result: object) -> object:
        raise AssertionError("a blocked call has no result")


class McpCallGuards(Capability):
    def mcp_call_guards(self) -> tuple[CallGuard, ...]:
        return (BlockAll(),)


def test_hosts_put_call_guards_in_front_of_every_mcp_call(tmp_path: Path) -> None:
    root = project(tmp_path, "plugins:\n" + everything("everything"))

    async def body() -> None:
        guards = McpCallGuards()
        config = load_config(root, MODEL, persist=False)
        session = await open_session(config, approver=None, capabilities=(guards,))
        try:
            await session.wait_for_mcp()
            assert session.mcp is not None
            result = await session.mcp.call(
                ToolCall(id="c", name="mcp__everything__echo", arguments={"message": "x"}),
                session.agent.loop.environment.context(ToolCall(id="c", name="x", arguments={}), "root"),
            )
            assert result.success is False and "nothing goes to MCP servers here" in result.output
        finally:
            await session.close()

    asyncio.run(body())
