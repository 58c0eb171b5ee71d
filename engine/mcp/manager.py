"""Every configured MCP server as one toolset, with a status per server for ``/mcp`` and ``hive mcp list``.

``start`` returns at once: each server connects in its own background task under its own deadline,
so a slow or broken server delays neither the others nor the first prompt. A server's tools are
offered once it has listed them (``wait_ready`` waits for that, for hosts such as ``hive run`` that
must offer them from the first model call). With ``known_tools`` (a session's manager), a server
that listed its tools in an earlier session has them offered from the cache
(:mod:`engine.mcp.tool_cache`) while it starts, is not waited for, and each listing is kept there.
Such a server starts connecting ``KNOWN_START_S`` after the session started, or at once when one of
its tools is called: its start (the SDK's import above all, about a second of CPU) is then never on
the way of the first request, and a short run that calls none of its tools does not pay for it.
Every call passes the call guards first (a blocked call is never sent; a guard that raises blocks)
and its result passes them afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from msgspec import Struct

from engine.events import ToolCall
from engine.mcp.client_requests import NO_CLIENT_REQUESTS, ClientRequests
from engine.mcp.config import McpServers, ServerConfig
from engine.mcp.connection import ServerConnection, ServerState
from engine.mcp.options import McpOptions
from engine.mcp.reload import ConfigWatcher
from engine.mcp.roots import Root
from engine.mcp.tool_cache import KnownTools, read_known, remember
from engine.mcp.tools import McpToolInfo, call_tool, tool_infos
from engine.policy.guards import CallGuard, guarded_call
from engine.tools.base import ToolContext, ToolResult, ToolSpec

STOP_TIMEOUT_S = 10.0
"""Longer than the SDK's own stop sequence (2 s for stdin to close it, 2 s after SIGTERM, then SIGKILL)."""
KNOWN_START_S = 1.0
"""How long after the session started a server offered from the cache starts connecting (if not called before)."""


class ServerStatus(Struct, frozen=True, kw_only=True):
    """A snapshot of one server, for hosts to show."""

    name: str
    transport: str
    source: Path
    """The file that configures it."""
    state: ServerState | None
    """None for a disabled server."""
    error: str | None
    tools: tuple[McpToolInfo, ...]
    resources: int
    prompts: tuple[str, ...]
    protocol_version: str | None
    connect_s: float | None
    log_path: Path | None
    """Where a stdio server's stderr goes."""
    log_problem: str | None = None
    """Why that log lacks what the server printed (a full disk), naming the folder and what was kept."""


class McpManager:
    """The configured servers' tools under ``mcp__{server}__{tool}``; a toolset with a lifecycle."""

    def __init__(
        self,
        servers: McpServers,
        log_dir: Path,
        *,
        guards: Sequence[CallGuard] = (),
        on_change: Callable[[], None] | None = None,
        reload_from: tuple[Path, McpOptions] | None = None,
        unsafe_dirs: tuple[Path, ...] | None = None,
        known_tools: bool = False,
        roots: tuple[Root, ...] = (),
        requests: ClientRequests = NO_CLIENT_REQUESTS,
    ) -> None:
        """``reload_from`` (a working directory and the ``mcp`` settings) turns on hot reload of its configuration;
        ``unsafe_dirs``: the folders sandboxed commands can write (None: each server's project), where a server's
        program is never looked up; ``known_tools``: offer a server's cached tools while it starts (and keep
        its listings in the cache); ``roots``: the folders offered to every server (:mod:`engine.mcp.roots`);
        ``requests``: how the servers' elicitation and sampling requests are answered (:mod:`engine.mcp.client_requests`)."""
        self.servers = servers
        self._known_tools = known_tools
        self.unsafe_dirs = unsafe_dirs
        self.roots = roots
        self.requests = requests
        self.guards = tuple(guards)
        self.reload_error: str | None = None
        """Why the last change to the configuration was not applied (None when it was, or none was made)."""
        self._log_dir = log_dir
        self._listeners: list[Callable[[], None]] = [on_change] if on_change is not None else []
        self._connections = {s.name: self._connection(s) for s in servers.enabled}
        self._retiring: set[asyncio.Task[None]] = set()
        self._watcher = ConfigWatcher(*reload_from, self.apply, self._reloaded) if reload_from else None
        self._offered: dict[str, tuple[KnownTools, tuple[McpToolInfo, ...], tuple[ToolSpec, ...]]] = {}
        self._kept: dict[str, KnownTools] = {}
        """The listing last written to the cache, per server."""
        self._deferred: list[ServerConnection] = []
        """Servers offered from the cache that have not started connecting yet."""
        self._deferred_timer: asyncio.TimerHandle | None = None
        self._first_listed: dict[str, frozenset[str]] = {}
        """Each server's tool names at its first listing: a tool it adds later is asked about (``added_later``)."""

    # --- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Start connecting every enabled server in the background (one offered from the cache a second later)."""
        for connection in self._connections.values():
            if connection.known is None:
                connection.start()
            else:
                self._deferred.append(connection)
        if self._deferred:
            self._deferred_timer = asyncio.get_running_loop().call_later(KNOWN_START_S, self._start_deferred)
        if self._watcher is not None:
            self._watcher.start()
            self._watcher.catch_up()

    def apply(self, servers: McpServers) -> None:
        """Run ``servers`` from now on: start the added ones, stop the removed ones, restart the changed ones."""
        wanted = {s.name: s for s in servers.enabled}
        for name, connection in list(self._connections.items()):
            target = wanted.get(name)
            if target is None or target.fingerprint != connection.config.fingerprint:
                del self._connections[name]
                self._retire(connection)
        connections: dict[str, ServerConnection] = {}
        for name, config in wanted.items():
            kept = self._connections.get(name)
            if kept is None:
                kept = self._connection(config)
                kept.start()
            connections[name] = kept
        self._connections = connections
        self.servers = servers
        self._changed()

    def _start_deferred(self) -> None:
        deferred, self._deferred = self._deferred, []
        if self._deferred_timer is not None:
            self._deferred_timer.cancel()
            self._deferred_timer = None
        for connection in deferred:
            if self._connections.get(connection.config.name) is connection:
                connection.start()

    def _connection(self, config: ServerConfig) -> ServerConnection:
        roots = self.roots if config.roots else ()
        connection = ServerConnection(config, self._log_dir, self._changed, self.unsafe_dirs, roots, self.requests)
        if self._known_tools and not config.awaiting_approval and config.problem is None:
            connection.known = read_known(config)
        return connection

    def _retire(self, connection: ServerConnection) -> None:
        task = asyncio.get_running_loop().create_task(connection.stop())
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    def _reloaded(self, problem: str | None) -> None:
        self.reload_error = problem
        self._changed()

    async def wait_ready(self) -> None:
        """Return once every server whose tools are not known from the cache has connected or failed (each
        bounded by its own ``startup_timeout``); the others go on connecting in the background."""
        await asyncio.gather(*(c.wait_settled() for c in self._connections.values() if c.known is None))

    async def stop(self) -> None:
        """Close every server at once; none is left running even if this is cancelled."""
        if self._watcher is not None:
            await self._watcher.stop()
        if self._deferred_timer is not None:
            self._deferred_timer.cancel()
        self._deferred = []
        stopping = [asyncio.ensure_future(c.stop()) for c in self._connections.values()]
        stopping += list(self._retiring)
        if stopping:
            await asyncio.wait(stopping, timeout=STOP_TIMEOUT_S)

    # --- the toolset --------------------------------------------------------------------

    def specs(self) -> Sequence[ToolSpec]:
        return [spec for connection in self._connections.values() for spec in self._offer(connection)[1]]

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        if self._deferred:  # a call waits for its server: every server offered from the cache starts now
            self._start_deferred()
        found = self._find(call.name)
        if found is None:
            names = ", ".join(sorted(spec.name for spec in self.specs())) or "none"
            return ToolResult.error(f"Unknown tool {call.name!r}. Available MCP tools: {names}.")
        connection, info = found
        return await guarded_call(self.guards, call, lambda: call_tool(connection, info, call.arguments, ctx))

    def _find(self, name: str) -> tuple[ServerConnection, McpToolInfo] | None:
        for connection in self._connections.values():
            if not name.startswith(f"mcp__{connection.config.name}__"):
                continue
            for info in self._offer(connection)[0]:
                if info.name == name:
                    return connection, info
        return None

    def _offer(self, connection: ServerConnection) -> tuple[tuple[McpToolInfo, ...], tuple[ToolSpec, ...]]:
        """The server's tools and their specs, built again only when its listing changed (specs are read often)."""
        name, listing = connection.config.name, _offered_listing(connection)
        cached = self._offered.get(name)
        if cached is None or cached[0] is not listing:
            infos = tuple(tool_infos(connection.config, listing))
            first = None
            if infos and listing is connection.listed:  # tools "added later" are judged against a live listing
                first = self._first_listed.setdefault(name, frozenset(info.name for info in infos))
            untrusted = connection.config.untrusted_claims
            specs = tuple(
                info.spec(name, added_later=first is not None and info.name not in first, untrusted_claims=untrusted)
                for info in infos
            )
            cached = (listing, infos, specs)
            self._offered[name] = cached
        return cached[1], cached[2]

    def _keep_listings(self) -> None:
        """Write each server's new listing to the cache when it differs from what the cache holds."""
        for connection in self._connections.values():
            listed = connection.listed
            if listed is None or self._kept.get(connection.config.name) is listed:
                continue
            self._kept[connection.config.name] = listed
            if listed != connection.known:
                remember(connection.config, listed)
                connection.known = listed

    # --- what hosts read ------------------------------------------------------------------

    def status(self) -> tuple[ServerStatus, ...]:
        """Every configured server, disabled ones included, in configuration order."""
        return tuple(self._status(server) for server in self.servers.servers)

    async def is_healthy(self, name: str) -> bool:
        """Whether server ``name`` answers now (False for an unknown, disabled or failed server)."""
        connection = self._connections.get(name)
        return connection is not None and await connection.is_healthy()

    def listen(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` whenever a server's state or tools change, or a reload is applied or refused."""
        self._listeners.append(listener)

    def connection(self, name: str) -> ServerConnection | None:
        """The connection of an enabled server."""
        return self._connections.get(name)

    def _status(self, server: ServerConfig) -> ServerStatus:
        connection = self._connections.get(server.name)
        if connection is None:
            return ServerStatus(
                name=server.name,
                transport=server.transport,
                source=server.source,
                state=None,
                error=None,
                tools=(),
                resources=0,
                prompts=(),
                protocol_version=None,
                connect_s=None,
                log_path=None,
            )
        listing = connection.listing
        return ServerStatus(
            name=server.name,
            transport=server.transport,
            source=server.source,
            state=connection.state,
            error=connection.error,
            tools=self._offer(connection)[0],
            resources=len(listing.resources),
            prompts=tuple(p.name for p in listing.prompts),
            protocol_version=connection.protocol_version,
            connect_s=connection.connect_s,
            log_path=connection.log_path if server.transport == "stdio" else None,
            log_problem=connection.log_problem,
        )

    def _changed(self) -> None:
        if self._known_tools:
            self._keep_listings()
        for listener in self._listeners:
            listener()


_NOTHING = KnownTools()


def _offered_listing(connection: ServerConnection) -> KnownTools:
    """What a server offers: its listing in this session; before it has one, while it starts, the cached one."""
    if connection.listed is not None:
        return connection.listed
    if connection.known is not None and connection.state == "starting":
        return connection.known
    return _NOTHING
