"""The SDK transport for one server: a process over stdio, Streamable HTTP, or the older SSE.

Only ``connection`` calls this, when a server starts, so importing the ``mcp`` SDK (about a second)
never slows hive's start. A stdio server (``stdio``) runs in its own process group, its stderr in
its own log file (a pipe nobody drains would stall the server).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import anyio

from engine.mcp.config import ServerConfig
from engine.mcp.stdio import stdio_transport

HTTP_CONNECT_TIMEOUT_S = 30.0
HTTP_READ_TIMEOUT_S = 300.0
"""How long a Streamable HTTP or SSE stream may stay quiet (a bare client would give up after 5 s)."""


REFUSALS = (401, 403, 404)
"""HTTP statuses that say why a server refused hive (the SDK reports them on Streamable HTTP as JSON-RPC errors)."""


class HttpAnswers:
    """What an HTTP server answered during one connection attempt: the first refusal (401, 403, 404), if any."""

    def __init__(self) -> None:
        self.refused: int | None = None

    async def note(self, response: Any) -> None:
        """An httpx response hook: keep the first refusal."""
        if self.refused is None and response.status_code in REFUSALS:
            self.refused = response.status_code


def open_transport(
    server: ServerConfig,
    errlog: TextIO,
    on_exit: Callable[[], None] | None = None,
    unsafe_dirs: Sequence[Path] | None = None,
    answers: HttpAnswers | None = None,
    auth: Any = None,
) -> Any:
    """A fresh transport context manager for ``server`` (each connection attempt needs its own).

    ``on_exit`` is called when a stdio server exits by itself; a stdio server's program is never
    taken from ``unsafe_dirs`` (see :func:`engine.mcp.stdio.server_program`); ``answers`` hears the
    HTTP statuses a Streamable HTTP server answers with; ``auth``: the ``httpx2.Auth`` of an http or
    sse server (default: its OAuth provider, :func:`engine.mcp.oauth.provider.server_auth`).
    """
    if server.transport == "stdio":
        return stdio_transport(server, errlog, on_exit, unsafe_dirs)
    assert server.url is not None
    if auth is None:
        from engine.mcp.oauth.provider import server_auth

        auth = server_auth(server)
    if server.transport == "http":
        return _streamable_http(server.url, dict(server.headers), answers or HttpAnswers(), auth)
    return _sse(server.url, dict(server.headers), auth)


@asynccontextmanager
async def _streamable_http(url: str, headers: dict[str, str], answers: HttpAnswers, auth: Any) -> AsyncIterator[Any]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    timeout = httpx2.Timeout(HTTP_CONNECT_TIMEOUT_S, read=HTTP_READ_TIMEOUT_S)
    hooks = {"response": [answers.note]}
    async with httpx2.AsyncClient(
        headers=headers, timeout=timeout, follow_redirects=True, event_hooks=hooks, auth=auth
    ) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            yield streams


@asynccontextmanager
async def _sse(url: str, headers: dict[str, str], auth: Any) -> AsyncIterator[Any]:
    from mcp.client.sse import sse_client

    try:
        async with sse_client(
            url,
            headers=headers or None,
            timeout=HTTP_CONNECT_TIMEOUT_S,
            sse_read_timeout=HTTP_READ_TIMEOUT_S,
            auth=auth,
        ) as streams:
            yield streams
    except* anyio.BrokenResourceError:
        # The SDK's SSE reader can race the close and forward an error into a closed stream;
        # the connection is over either way.
        pass
