"""The everything server over Streamable HTTP and SSE: tools listed, calls answered, progress in order."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine.events import ToolCall
from engine.mcp.config import McpServers
from engine.mcp.entries import Transport
from engine.mcp.manager import McpManager
from engine.tools.base import ToolContext, ToolResult
from tests.support.mcp_servers import everything_over, free_port, remote

MODES: list[tuple[Transport, str, str]] = [("http", "streamableHttp", "/mcp"), ("sse", "sse", "/sse")]


@pytest.mark.parametrize(("transport", "mode", "path"), MODES)
def test_the_everything_server_answers_over_the_network(
    tmp_path: Path, transport: Transport, mode: str, path: str
) -> None:
    seen: list[tuple[float | None, float | None]] = []

    def progress(status: str, value: float | None = None, total: float | None = None) -> None:
        seen.append((value, total))

    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path, progress=progress)

    async def body(port: int) -> None:
        server = remote("web", transport, f"http://127.0.0.1:{port}{path}", headers={"X-Test": "1"})
        manager = McpManager(McpServers(servers=(server,)), tmp_path)
        await manager.start()
        try:
            await asyncio.wait_for(manager.wait_ready(), 15)
            assert manager.status()[0].state == "ready", manager.status()[0].error
            echo = await manager.call(ToolCall(id="e", name="mcp__web__echo", arguments={"message": "far"}), ctx)
            assert echo == ToolResult("Echo: far")
            long = ToolCall(
                id="l", name="mcp__web__trigger-long-running-operation", arguments={"duration": 0.3, "steps": 3}
            )
            assert (await manager.call(long, ctx)).success is True
            assert await manager.is_healthy("web")
        finally:
            await manager.stop()

    with everything_over(mode) as port:
        asyncio.run(body(port))
    assert seen == [(1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_a_server_nobody_runs_fails_with_its_address(tmp_path: Path, transport: Transport) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"

    async def body() -> None:
        manager = McpManager(McpServers(servers=(remote("gone", transport, url, startup_timeout=5),)), tmp_path)
        await manager.start()
        await asyncio.wait_for(manager.wait_ready(), 10)
        status = manager.status()[0]
        await manager.stop()
        assert status.state == "failed" and status.error and url in status.error, status.error
        assert manager.specs() == []

    asyncio.run(body())


def test_sse_connections_close_cleanly_again_and_again(tmp_path: Path) -> None:
    async def body(port: int) -> None:
        for _ in range(10):
            server = remote("web", "sse", f"http://127.0.0.1:{port}/sse")
            manager = McpManager(McpServers(servers=(server,)), tmp_path)
            await manager.start()
            await asyncio.wait_for(manager.wait_ready(), 10)
            assert manager.status()[0].state == "ready"
            await manager.stop()
            assert manager.status()[0].state == "stopped"

    with everything_over("sse") as port:
        asyncio.run(body(port))
