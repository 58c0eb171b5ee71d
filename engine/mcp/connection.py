"""One MCP server kept connected: connect in the background under a deadline, re-list on change, reconnect.

A connection's whole life (connect, list, serve, close) runs in one background task, because the
SDK's client must be entered and left in the same task. The startup deadline is a cancel scope
around all of it, lifted once the tools are listed, so a server that hangs (the SDK's own
``server/discover`` probe waits 10 s) fails on time without disturbing the others. After a crash
the next call reconnects: at once the first time, then with a growing pause between attempts.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal, TextIO

import anyio

from engine.mcp.calls_in_flight import CallsInFlight
from engine.mcp.client_requests import NO_CLIENT_REQUESTS, ClientRequests
from engine.mcp.config import ServerConfig
from engine.mcp.errlog import ServerLog, server_log
from engine.mcp.errors import CallFailed, connection_lost, describe_connect_error
from engine.mcp.listing import Listing, fetch_listing, fetch_tools
from engine.mcp.roots import Root, roots_result
from engine.mcp.sdk_import import import_sdk
from engine.mcp.tool_cache import KnownTools, server_tool
from engine.mcp.transports import HttpAnswers, open_transport
from engine.private_files import private_dir

ServerState = Literal["starting", "ready", "failed", "stopped", "awaiting_approval"]
"""``awaiting_approval``: the project's own files define the server and the person has not approved it (not started)."""
MODERN_PROTOCOL = "2026-07-28"
"""From this protocol version on, list changes arrive only through ``subscriptions/listen``."""
MAX_BACKOFF_S = 30.0
Progress = Callable[[float, float | None, str | None], Awaitable[None]]


class ServerConnection:
    """One configured server: its state, its last listing, and calls to it."""

    def __init__(
        self,
        config: ServerConfig,
        log_dir: Path,
        on_change: Callable[[], None] | None = None,
        unsafe_dirs: tuple[Path, ...] | None = None,
        roots: tuple[Root, ...] = (),
        requests: ClientRequests = NO_CLIENT_REQUESTS,
    ) -> None:
        """``unsafe_dirs``: the folders sandboxed commands can write, where a server's program is never looked up;
        ``roots``: the folders offered to the server (``roots/list``; none: the capability is not declared);
        ``requests``: how the server's elicitation and sampling requests are answered (see :mod:`.client_requests`)."""
        self.config = config
        self.unsafe_dirs = unsafe_dirs
        self.roots = roots
        self.requests = requests
        self.calls = CallsInFlight()
        """The tool calls to the server running now (a sampling request is taken only during one)."""
        self.log_path = log_dir / f"{config.name}.log"
        self.state: ServerState = "starting"
        self.error: str | None = None
        self.listing = Listing()
        self.listed: KnownTools | None = None
        """What the server listed in this session (its latest listing), in plain values; None until it lists."""
        self.known: KnownTools | None = None
        """What it listed in an earlier session (the cache), offered while it starts until it lists in this one."""
        self.protocol_version: str | None = None
        self.connect_s: float | None = None
        """Seconds the last successful connection took, listing included."""
        self._on_change = on_change
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self._settled: asyncio.Event | None = None
        self._wake: asyncio.Event | None = None
        self._relist = False
        self._lost = False
        self._stopping = False
        self._failures = 0
        self._retry_at = 0.0
        self._answers = HttpAnswers()
        self._log: ServerLog | None = None

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Begin connecting in the background (returns at once); a server awaiting approval is not started."""
        if self.config.awaiting_approval:
            self.error = self.config.problem
            self._set_state("awaiting_approval")
            return
        if self.config.problem is not None:
            self._fail(self.config.problem)
            return
        self._stopping = False
        self._lost = False
        self._settled = asyncio.Event()
        self._wake = asyncio.Event()
        self._set_state("starting")
        private_dir(self.log_path.parent)
        self._task = asyncio.get_running_loop().create_task(self._lifetime(), name=f"mcp:{self.config.name}")

    async def wait_settled(self) -> None:
        """Return once the current attempt has connected or failed."""
        if self._settled is not None and self.state == "starting":
            await self._settled.wait()

    async def stop(self) -> None:
        """Close the connection; a stdio server is stopped (stdin closed, then SIGTERM and SIGKILL to its group)."""
        self._stopping = True
        if self._scope is not None and self.state == "starting":
            self._scope.cancel()
        self._poke()
        task, self._task = self._task, None
        if task is not None:
            await asyncio.shield(task)
        self._set_state("stopped")

    # --- calls ----------------------------------------------------------------------------

    async def client(self) -> Any:
        """The connected SDK client, reconnecting first when the server went away; raises ``CallFailed``."""
        if self._lost and self._task is not None:
            await asyncio.shield(self._task)  # the old connection winds down first
        if self.state == "failed" and not self._stopping:
            self._reconnect_or_raise()
        await self.wait_settled()
        if self.state != "ready" or self._client is None:
            raise CallFailed(f"MCP server {self.config.name!r} is not available: {self.error or self.state}")
        return self._client

    @property
    def log_problem(self) -> str | None:
        """Why the server's log lacks what it printed in its latest start (a full disk), or None."""
        return self._log.problem if self._log is not None else None

    def connection_lost(self, reason: str) -> None:
        """Mark the server gone (a call saw the connection close); the next call reconnects."""
        if self.state == "ready":
            self._lost = True
            self.error = reason
            self._poke()

    async def is_healthy(self) -> bool:
        """Whether the server answers now: a ping on older protocol versions, a tool listing on newer ones."""
        client = self._client
        if self.state != "ready" or client is None or self._lost:
            return False
        try:
            with anyio.fail_after(min(5.0, self.config.startup_timeout)):
                if self.protocol_version == MODERN_PROTOCOL:
                    await client.list_tools(cache_mode="bypass")
                else:
                    await client.session.send_ping()
        except Exception as exc:
            if connection_lost(exc):
                self.connection_lost("the connection closed")
            return False
        return True

    # --- the background task --------------------------------------------------------------

    async def _lifetime(self) -> None:
        started = time.monotonic()
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                scope.deadline = anyio.current_time() + self.config.startup_timeout
                async with server_log(self.log_path, self.config) as log:
                    self._log = log
                    await self._connect_and_serve(scope, log.writer, started)
            if scope.cancelled_caught and self.state == "starting" and not self._stopping:
                self._fail(f"did not connect within {self.config.startup_timeout:g} s")
        except Exception as exc:
            self._fail(describe_connect_error(exc, self.config, self.log_path, self._answers.refused))
        finally:
            self._client = None
            self._scope = None
            if self.state in ("starting", "ready"):
                if self._stopping:
                    self._set_state("stopped")
                else:
                    self._fail(self.error or "the connection closed")
            self._settle()

    async def _connect_and_serve(self, scope: anyio.CancelScope, errlog: TextIO, started: float) -> None:
        await import_sdk(self.config.transport)
        from mcp import Client
        from mcp_types import Implementation

        errlog.write(f"--- hive connecting to {self.config.name} at {time.strftime('%Y-%m-%d %H:%M:%S')}\n")
        errlog.flush()
        self._answers = HttpAnswers()
        async with Client(
            open_transport(
                self.config,
                errlog,
                on_exit=lambda: self.connection_lost("the server exited"),
                unsafe_dirs=self.unsafe_dirs,
                answers=self._answers,
            ),
            message_handler=self._on_message,
            list_roots_callback=self._list_roots if self.roots else None,
            elicitation_callback=self._elicit if self.requests.elicit else None,
            sampling_callback=self._sample if self.requests.sample else None,
            client_info=Implementation(name="hive", version="0.1.0"),
        ) as client:
            self.protocol_version = client.protocol_version
            self._set_listing(await fetch_listing(client), client.server_info)
            scope.deadline = math.inf
            self._client = client
            self._failures = 0
            self.error = None
            self.connect_s = time.monotonic() - started
            self._set_state("ready")
            self._settle()
            await self._serve(client)

    async def _serve(self, client: Any) -> None:
        async with anyio.create_task_group() as group:
            if client.protocol_version == MODERN_PROTOCOL:
                group.start_soon(self._listen, client)
            while not self._stopping and not self._lost:
                assert self._wake is not None
                await self._wake.wait()
                self._wake.clear()
                if self._relist and not self._stopping and not self._lost:
                    self._relist = False
                    await self._refresh_tools(client)
            group.cancel_scope.cancel()

    async def _refresh_tools(self, client: Any) -> None:
        try:
            tools = await fetch_tools(client)
        except Exception as exc:
            if connection_lost(exc):
                self.connection_lost("the connection closed")
            return
        listing = Listing(tools=tools, resources=self.listing.resources, prompts=self.listing.prompts)
        self._set_listing(listing, client.server_info)
        self._changed()

    def _set_listing(self, listing: Listing, server_info: Any) -> None:
        self.listing = listing
        self.listed = KnownTools(
            server_name=server_info.name if server_info is not None else None,
            server_version=server_info.version if server_info is not None else None,
            tools=tuple(server_tool(tool) for tool in listing.tools),
            resources=tuple(str(resource.uri) for resource in listing.resources),
        )

    async def _listen(self, client: Any) -> None:
        """On 2026-era connections, tool list changes come only through a held-open subscription."""
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self._request_relist()
        except Exception:  # the server does not offer it, or the stream dropped: calls still work
            return

    async def _list_roots(self, context: Any) -> Any:  # named as in the SDK's ListRootsFnT
        return roots_result(self.roots)

    async def _elicit(self, context: Any, params: Any) -> Any:  # named as in the SDK's ElicitationFnT
        from engine.mcp.elicitation import withdrawn

        assert self.requests.elicit is not None
        return await self.calls.while_calling(self.requests.elicit(self.config.name, params), withdrawn)

    async def _sample(self, context: Any, params: Any) -> Any:  # named as in the SDK's SamplingFnT
        from engine.mcp.sampling import outside_a_call

        assert self.requests.sample is not None
        return await self.calls.while_calling(self.requests.sample(self.config.name, params), outside_a_call)

    async def _on_message(self, message: Any) -> None:
        from mcp_types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification):
            self._request_relist()

    # --- state --------------------------------------------------------------------------

    def _reconnect_or_raise(self) -> None:
        if self.config.problem is not None:
            raise CallFailed(self.config.problem)
        wait = self._retry_at - time.monotonic()
        if wait > 0:
            raise CallFailed(
                f"MCP server {self.config.name!r} is not available ({self.error}); hive tries again in {wait:.0f} s"
            )
        self.start()

    def _request_relist(self) -> None:
        self._relist = True
        self._poke()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _settle(self) -> None:
        if self._settled is not None:
            self._settled.set()

    def _fail(self, error: str) -> None:
        self._failures += 1
        pause = 0.0 if self._failures == 1 else min(MAX_BACKOFF_S, 2.0 ** (self._failures - 2))
        self._retry_at = time.monotonic() + pause
        self.error = error
        self._set_state("failed")

    def _set_state(self, state: ServerState) -> None:
        changed = state != self.state
        self.state = state
        if changed:
            self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()
