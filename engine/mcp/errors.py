"""What went wrong with an MCP server, in one line a person (or the model) can act on."""

from __future__ import annotations

from pathlib import Path

from engine.mcp.config import ServerConfig

_LOST_CODES = (-32000, -32600)
"""CONNECTION_CLOSED, and "Session terminated" (an HTTP server that restarted has forgotten the session)."""


class CallFailed(Exception):
    """A call could not be made or did not complete; ``str()`` is the message for the model."""


def leaf(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups: the one that says what happened."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the server is gone (so the next call should reconnect)."""
    from mcp import MCPError

    error = leaf(exc)
    if isinstance(error, MCPError):
        return error.code in _LOST_CODES
    import anyio

    return isinstance(error, OSError | EOFError | anyio.ClosedResourceError | anyio.BrokenResourceError) or (
        type(error).__module__.startswith("httpx")
    )


def describe_connect_error(exc: BaseException, server: ServerConfig, log: Path | None = None) -> str:
    """Why connecting to ``server`` failed; names the command or URL, never its env or headers."""
    from mcp import MCPError

    error = leaf(exc)
    if isinstance(error, FileNotFoundError) and server.transport == "stdio":
        return f"cannot run {server.command!r}: no such program (check 'command' in {server.source})"
    if isinstance(error, PermissionError) and server.transport == "stdio":
        return f"cannot run {server.command!r}: permission denied"
    if isinstance(error, MCPError):
        if error.code == -32000 and server.transport == "stdio":
            return (
                f"the server exited during startup (its stderr is in {log})"
                if log
                else "the server exited during startup"
            )
        return f"the server refused the connection: {error.message} (code {error.code})"
    if type(error).__module__.startswith("httpx") and server.url:
        said = str(error).splitlines()[0] if str(error) else type(error).__name__
        return f"cannot reach {_plain_url(server.url)}: {said}"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def describe_call_error(exc: BaseException, server: str, tool: str, timeout: float) -> str:
    """Why a call to ``tool`` failed, for the model."""
    from mcp import MCPError

    error = leaf(exc)
    if isinstance(error, MCPError):
        if error.code == -32001:
            return f"{tool} on MCP server {server!r} timed out after {timeout:g} s (the call was cancelled)"
        if error.code in _LOST_CODES:
            return f"MCP server {server!r} went away during the call ({error.message}); the next call reconnects"
        return f"{tool} on MCP server {server!r} failed: {error.message} (code {error.code})"
    if isinstance(error, TimeoutError):
        return f"{tool} on MCP server {server!r} timed out after {timeout:g} s"
    if connection_lost(error):
        return f"MCP server {server!r} went away during the call; the next call reconnects"
    return f"{tool} on MCP server {server!r} failed: {type(error).__name__}: {error}"


def _plain_url(url: str) -> str:
    """``url`` without any user:password part."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    host, slash, path = rest.partition("/")
    return f"{scheme}://{host.rpartition('@')[2]}{slash}{path}"
