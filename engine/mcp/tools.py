"""A server's tools as hive tools: ``mcp__{server}__{tool}`` specs, calls with progress, results as text.

The server's annotations are shown, never trusted (the MCP specification: clients must not trust
annotations from servers they do not trust): ``readOnlyHint`` lets the calls run side by side and
lets a user's ``mcp_read_only`` rule apply, but plan mode offers an MCP tool only when the user's rules
name it read-only, and nothing is allowed because a server said so. ``title`` and ``destructiveHint``
are kept for hosts to show. Servers that have resources also get ``mcp__{server}__read_resource``.
"""

from __future__ import annotations

import contextvars
import hashlib
import re
from typing import Any

import anyio
from msgspec import Struct

from engine.globs import name_matches
from engine.mcp.config import ServerConfig
from engine.mcp.connection import ServerConnection
from engine.mcp.content import result_text
from engine.mcp.errors import CallFailed, connection_lost, describe_call_error
from engine.mcp.tool_cache import KnownTools, ServerTool
from engine.tools.base import ToolContext, ToolResult, ToolSpec

READ_RESOURCE = "read_resource"
MAX_NAME = 64
OUTER_MARGIN_S = 2.0
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
_RESOURCES_SHOWN = 20


class McpToolInfo(Struct, frozen=True):
    """One server tool as hive offers it."""

    name: str
    """``mcp__{server}__{tool}``."""
    tool: str
    """The server's own name for it."""
    description: str
    parameters: dict[str, Any]
    title: str | None = None
    read_only: bool = False
    destructive: bool | None = None

    def spec(self, server: str, *, added_later: bool = False, untrusted_claims: bool = False) -> ToolSpec:
        """The spec shown to the model (``added_later``: the server added it after its first listing;
        ``untrusted_claims``: an untrusted project's server, whose read-only claim lets nothing run unasked)."""
        return ToolSpec(
            name=self.name,
            description=self.description,
            parameters=self.parameters,
            read_only=self.read_only,
            kind="mcp",
            source=server,
            added_later=added_later,
            untrusted_claims=untrusted_claims,
        )


def exposed_name(server: str, tool: str) -> str:
    """``mcp__{server}__{tool}``, with characters function names cannot hold replaced by ``_``.

    Providers refuse a whole request whose function names pass 64 characters, so a longer name is
    cut and ends in a hash of the full one (still unique, still the same on every listing).
    """
    name = f"mcp__{server}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def tool_infos(config: ServerConfig, known: KnownTools) -> list[McpToolInfo]:
    """The tools of ``known`` hive offers (after ``include_tools``/``exclude_tools``), plus ``read_resource``."""
    infos = [_info(config.name, tool) for tool in known.tools if _wanted(tool.name, config)]
    names = {info.name for info in infos}
    if known.resources and exposed_name(config.name, READ_RESOURCE) not in names:
        infos.append(_read_resource_info(config.name, known.resources))
    return infos


def _wanted(tool: str, config: ServerConfig) -> bool:
    if any(name_matches(pattern, tool) for pattern in config.exclude_tools):
        return False
    return config.include_tools is None or any(name_matches(p, tool) for p in config.include_tools)


def _info(server: str, tool: ServerTool) -> McpToolInfo:
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else _EMPTY_SCHEMA
    if schema.get("type") != "object":
        schema = _EMPTY_SCHEMA
    return McpToolInfo(
        name=exposed_name(server, tool.name),
        tool=tool.name,
        description=tool.description or tool.title or tool.name,
        parameters=schema,
        title=tool.title,
        read_only=tool.read_only,
        destructive=tool.destructive,
    )


def _read_resource_info(server: str, resources: tuple[str, ...]) -> McpToolInfo:
    shown = ", ".join(resources[:_RESOURCES_SHOWN])
    more = f" and {len(resources) - _RESOURCES_SHOWN} more" if len(resources) > _RESOURCES_SHOWN else ""
    return McpToolInfo(
        name=exposed_name(server, READ_RESOURCE),
        tool="",
        description=f"Read a resource of the {server} MCP server by its URI ({shown}{more}).",
        parameters={
            "type": "object",
            "properties": {"uri": {"type": "string", "description": "The resource's URI"}},
            "required": ["uri"],
        },
        title="Read resource",
        read_only=True,
    )


async def call_tool(connection: ServerConnection, info: McpToolInfo, arguments: Any, ctx: ToolContext) -> ToolResult:
    """Run ``info`` on the server: progress goes to the call's scope, ``isError`` comes back as a failed result."""
    if not isinstance(arguments, dict):
        return ToolResult.error(f"{info.name} needs its arguments as a JSON object")
    config = connection.config
    try:
        client = await connection.client()
        if not info.tool:
            return await _read_resource(client, arguments, info)
        progress = _ProgressBridge(ctx)
        async with connection.calls.calling():
            # The SDK's read timeout cancels the request on the server; this outer bound is only for a
            # transport that stops answering altogether.
            with anyio.fail_after(config.tool_timeout + OUTER_MARGIN_S):
                result = await client.call_tool(
                    info.tool, arguments, read_timeout_seconds=config.tool_timeout, progress_callback=progress
                )
        progress.close()
    except CallFailed as exc:
        return ToolResult.error(str(exc))
    except Exception as exc:
        if connection_lost(exc):
            connection.connection_lost("the connection closed during a call")
        return ToolResult.error(describe_call_error(exc, config.name, info.tool or READ_RESOURCE, config.tool_timeout))
    return ToolResult(result_text(result), success=not result.is_error)


async def _read_resource(client: Any, arguments: dict[str, Any], info: McpToolInfo) -> ToolResult:
    uri = arguments.get("uri")
    if not isinstance(uri, str) or not uri:
        return ToolResult.error(f"{info.name} needs a 'uri' string")
    result = await client.read_resource(uri, cache_mode="bypass")
    return ToolResult(result_text(result))


class _ProgressBridge:
    """The SDK's progress callback: forwards to the call's scope, in order, and nothing after the result.

    The SDK runs each callback as its own task, outside the tool call's context, so the call's
    context is captured here and each report made in it; a report older than the last one is dropped.
    """

    def __init__(self, ctx: ToolContext) -> None:
        self._ctx = ctx
        self._context = contextvars.copy_context()
        self._last: float | None = None
        self._closed = False

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        if self._closed or (self._last is not None and progress < self._last):
            return
        self._last = progress
        status = message or (f"{progress:g}/{total:g}" if total else f"{progress:g}")
        self._context.run(self._ctx.progress, status, progress, total)

    def close(self) -> None:
        self._closed = True
