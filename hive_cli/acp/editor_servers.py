"""The MCP servers the editor passes with ``session/new`` and ``session/load``, added to the session's own.

They are the person's choice made in the editor, like the servers of their own ``plugins.yaml``: connected
through hive's MCP client, their tools judged by the same rules. A server the editor names like a configured
one replaces it for this session. With servers from the editor, a change to the server files is not picked up
while the session runs (a reload reads only the files, and would drop the editor's). ACP-transport servers (``acp``) are not taken: hive does not advertise them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp.schema import HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer
from msgspec.structs import replace

from engine.config.loader import SessionConfig
from engine.mcp.config import ServerConfig

FROM_THE_EDITOR = Path("(the editor's session/new)")
"""Where these servers are said to come from (they have no file)."""


def with_editor_servers(config: SessionConfig, servers: Sequence[Any] | None) -> SessionConfig:
    """``config`` with the editor's stdio, http and sse servers added."""
    added = tuple(s for server in servers or () if (s := _server(server)) is not None)
    if not added:
        return config
    names = {s.name for s in added}
    kept = tuple(s for s in config.mcp_servers.servers if s.name not in names)
    merged = replace(config.mcp_servers, servers=(*kept, *added))
    return replace(config, mcp_servers=merged, mcp=replace(config.mcp, hot_reload=False))


def _server(server: Any) -> ServerConfig | None:
    match server:
        case McpServerStdio(name=name, command=command, args=args, env=env):
            variables = {v.name: v.value for v in env}
            return ServerConfig(
                name=name, transport="stdio", source=FROM_THE_EDITOR, command=command, args=tuple(args), env=variables
            )
        case HttpMcpServer(name=name, url=url, headers=headers):
            return ServerConfig(name=name, transport="http", source=FROM_THE_EDITOR, url=url, headers=_headers(headers))
        case SseMcpServer(name=name, url=url, headers=headers):
            return ServerConfig(name=name, transport="sse", source=FROM_THE_EDITOR, url=url, headers=_headers(headers))
        case _:
            return None


def _headers(headers: Sequence[HttpHeader]) -> dict[str, str]:
    return {header.name: header.value for header in headers}
