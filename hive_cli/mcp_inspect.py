"""``hive mcp list``, ``hive mcp tools`` and ``hive mcp call``: connect the configured servers and report.

Each command connects the servers it needs, each under its own startup deadline, then stops them
all (no process is left behind, Ctrl-C included).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from engine.config.settings import load_settings
from engine.errors import RunError, UserError
from engine.mcp.approvals import shown_command, shown_details
from engine.mcp.client_requests import ClientRequests
from engine.mcp.config import McpServers, ServerConfig, load_servers
from engine.mcp.elicitation import elicitation_handler
from engine.mcp.elicitation_question import ElicitationMode
from engine.mcp.manager import McpManager, ServerStatus
from engine.mcp.roots import Root, offered_roots
from engine.mcp.sampling import nobody_to_ask
from engine.paths import project_root, user_data_dir
from hive_cli.terminal_text import echo, echo_json

SWITCHED_OFF = "MCP is switched off in the settings (mcp.enabled: false): hive starts no MCP server"


def nobody_asked(elicitation: ElicitationMode = "decline") -> ClientRequests:
    """Nobody is asked here: a server's elicitation is answered by ``elicitation`` and its sampling refused, saying so."""
    return ClientRequests(elicit=elicitation_handler(None, elicitation), sample=nobody_to_ask)


def configured(cwd: Path, only: str | None = None) -> McpServers:
    """The servers configured for ``cwd`` (disabled ones too); with ``only``, just that one, enabled.

    When the settings switch MCP off, every server is disabled (and a notice says why), as a session sees them.
    """
    options = load_settings(cwd).merged().mcp
    servers = load_servers(cwd, options)
    if only is None:
        return servers if options.enabled else _switched_off(servers)
    chosen = [s for s in servers.servers if s.name == only]
    if not chosen:
        names = ", ".join(s.name for s in servers.servers) or "none (hive mcp add NAME -- COMMAND adds one)"
        raise UserError(f"no MCP server named {only!r}; configured: {names}")
    return McpServers(servers=(replace(chosen[0], enabled=True),), sources=servers.sources)


def _switched_off(servers: McpServers) -> McpServers:
    disabled = tuple(replace(server, enabled=False) for server in servers.servers)
    notices = (*servers.notices, SWITCHED_OFF) if servers.servers else servers.notices
    return McpServers(servers=disabled, sources=servers.sources, notices=notices)


def offered_roots_for(cwd: Path) -> tuple[Root, ...]:
    """The roots a session in ``cwd`` offers its servers: its project root and the sandbox's writable roots."""
    return offered_roots(cwd, load_settings(cwd).sandbox_options(project_root(cwd))[0])


@asynccontextmanager
async def connected(
    servers: McpServers,
    listener: Callable[[McpManager], None] | None = None,
    *,
    roots: tuple[Root, ...] = (),
    requests: ClientRequests | None = None,
) -> AsyncIterator[McpManager]:
    """A manager whose servers have all connected or failed (``listener`` hears each change); stopped on the way out.

    ``roots``: the folders offered to the servers (see :func:`offered_roots_for`); ``requests``: how the servers'
    elicitation and sampling requests are answered.
    """
    requests = requests or nobody_asked()
    manager = McpManager(servers, user_data_dir() / "mcp-logs", roots=roots, requests=requests)
    if listener is not None:
        manager.listen(lambda: listener(manager))
    await manager.start()
    try:
        await manager.wait_ready()
        yield manager
    finally:
        await manager.stop()


def state_text(status: ServerStatus) -> str:
    """``ready``, ``failed``, ``awaiting approval``, ... or ``disabled``."""
    return (status.state or "disabled").replace("_", " ")


def status_json(status: ServerStatus, config: ServerConfig | None = None) -> dict[str, Any]:
    """One server's status for ``--format json`` (with ``config``: what it runs, as written, and the variables it uses)."""
    shown: dict[str, Any] = {}
    if config is not None:
        shown = {"runs": shown_command(config), "uses": list(config.as_written.variables)}
        shown["awaiting_approval"] = config.awaiting_approval
    return {
        "name": status.name,
        "transport": status.transport,
        "source": str(status.source),
        **shown,
        "status": status.state or "disabled",
        "tools": len(status.tools),
        "tool_names": [info.tool or info.name for info in status.tools],
        "resources": status.resources,
        "prompts": list(status.prompts),
        "protocol_version": status.protocol_version,
        "connect_s": None if status.connect_s is None else round(status.connect_s, 3),
        "error": status.error,
    }


def list_servers(cwd: Path, output_format: str) -> None:
    """Connect every enabled server and print one line each: transport, status, tools, source, last error."""
    servers = configured(cwd)
    for notice in servers.notices:
        echo(f"hive: {notice}", err=True)

    async def statuses() -> tuple[ServerStatus, ...]:
        async with connected(servers, roots=offered_roots_for(cwd)) as manager:
            return manager.status()

    found = asyncio.run(statuses()) if servers.servers else ()
    configs = {server.name: server for server in servers.servers}
    if output_format == "json":
        shown = [status_json(s, configs.get(s.name)) for s in found]
        echo_json(json.dumps({"servers": shown}, indent=2, ensure_ascii=False))
        return
    if not found:
        echo("No MCP servers configured (hive mcp add NAME -- COMMAND ARGS... adds one).", err=True)
        return
    for line in status_lines(found, configs):
        echo(line)


def status_lines(found: Sequence[ServerStatus], configs: Mapping[str, ServerConfig] | None = None) -> list[str]:
    """The servers as aligned text lines (an indented ``error:`` line under a failed one).

    A server waiting for approval also shows what it would run, as written (variable names, never values).
    """
    width = max(len(s.name) for s in found)
    states = max(8, *(len(state_text(s)) for s in found))
    lines = []
    for s in found:
        tools = f"{len(s.tools)} tool{'s' if len(s.tools) != 1 else ''}"
        lines.append(f"{s.name:<{width}}  {s.transport:<5}  {state_text(s):<{states}}  {tools:<9}  {s.source}")
        if s.error:
            label = "not started" if s.state == "awaiting_approval" else "error"
            lines.append(f"{'':<{width}}  {label}: {s.error}")
        config = (configs or {}).get(s.name)
        if config is not None and config.awaiting_approval:
            lines.append(f"{'':<{width}}  runs: {shown_command(config)}")
            lines += [f"{'':<{width}}  {detail}" for detail in shown_details(config)]
    return lines


def list_tools(cwd: Path, server: str, output_format: str) -> None:
    """Print the tools one server offers (as the model sees them: names, read-only marks, descriptions)."""
    servers = configured(cwd, server)

    async def status() -> ServerStatus:
        async with connected(servers, roots=offered_roots_for(cwd)) as manager:
            return manager.status()[0]

    found = asyncio.run(status())
    if found.state != "ready":
        raise RunError(f"MCP server {server} is not available: {found.error or found.state}")
    if output_format == "json":
        payload = [
            {
                "name": info.tool or "read_resource",
                "exposed_as": info.name,
                "title": info.title,
                "description": info.description,
                "read_only": info.read_only,
                "destructive": info.destructive,
                "input_schema": info.parameters,
            }
            for info in found.tools
        ]
        echo_json(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    width = max((len(info.name) for info in found.tools), default=0)
    for info in found.tools:
        mark = "  (read-only)" if info.read_only else ""
        summary = info.description.strip().splitlines()[0] if info.description.strip() else ""
        echo(f"{info.name:<{width}}  {summary}{mark}")
    if not found.tools:
        echo(f"MCP server {server} offers no tools.", err=True)


def parse_json_arguments(text: str) -> dict[str, Any]:
    """``--args`` as a JSON object; anything else is a ``UserError``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"--args is not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise UserError('--args must be a JSON object, e.g. \'{"message": "hi"}\'')
    return value


def call(cwd: Path, server: str, tool: str, arguments: dict[str, Any], elicitation: ElicitationMode = "decline") -> int:
    """Call one tool and print its result; exit status 1 when the call failed (the text goes to stderr).

    Nobody is asked a server's elicitation request: ``elicitation`` declines it, or accepts a form's defaults.
    """
    from engine.mcp.tools import call_tool
    from engine.tools.base import ToolContext, ToolResult
    from hive_cli.elicitation_notes import notes_on_stderr

    servers = configured(cwd, server)

    def progress(status: str, progress: float | None = None, total: float | None = None) -> None:
        echo(f"progress: {status}", err=True)

    async def run() -> ToolResult:
        requests = nobody_asked(elicitation)
        async with connected(servers, roots=offered_roots_for(cwd), requests=requests) as manager:
            connection = manager.connection(server)
            assert connection is not None
            status = manager.status()[0]
            info = next((i for i in status.tools if tool in (i.tool, i.name) or i.name.endswith(f"__{tool}")), None)
            if info is None:
                if status.state != "ready":
                    raise RunError(f"MCP server {server} is not available: {status.error or status.state}")
                names = ", ".join(i.tool or "read_resource" for i in status.tools) or "none"
                raise UserError(f"MCP server {server} has no tool {tool!r}; it offers: {names}")
            ctx = ToolContext(cwd=cwd, data_dir=cwd, progress=progress)
            return await call_tool(connection, info, arguments, ctx)

    with notes_on_stderr():
        result = asyncio.run(run())
    if result.success is False:
        echo(f"hive: {tool} failed: {result.output}", err=True)
        return 1
    echo(result.output)
    return 0
