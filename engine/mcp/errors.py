"""What went wrong with an MCP server, in one line a person (or the model) can act on."""

from __future__ import annotations

import os
from pathlib import Path

from engine.mcp.config import ServerConfig
from engine.mcp.oauth.settings import EXPANDED_OAUTH_KEYS

_LOST_CODES = (-32000, -32600)
"""CONNECTION_CLOSED, and "Session terminated" (an HTTP server that restarted has forgotten the session)."""
_SHORTEST_REPLACED = 4
"""Shorter values are left as they are: replacing a "1" everywhere would garble the message and hides nothing."""


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


def describe_connect_error(
    exc: BaseException, server: ServerConfig, log: Path | None = None, refused: int | None = None
) -> str:
    """Why connecting to ``server`` failed; names the command or URL as written, never its env, headers or a variable's value.

    ``refused``: the HTTP status (401, 403, 404) the server answered the attempt with, when the transport saw one.
    """
    return without_values(_connect_error(exc, server, log, refused), server)


def _connect_error(exc: BaseException, server: ServerConfig, log: Path | None, refused: int | None) -> str:
    from mcp import MCPError

    error = leaf(exc)
    written = server.as_written
    said = _auth_problem(error, server.name)
    if said is not None:
        return said
    status = refused or _http_status(error)
    if status is not None and server.transport != "stdio":
        return http_refusal(status, server)
    if isinstance(error, FileNotFoundError) and server.transport == "stdio":
        return f"cannot run {written.command!r}: no such program (check 'command' in {server.source})"
    if isinstance(error, PermissionError) and server.transport == "stdio":
        return f"cannot run {written.command!r}: permission denied"
    if isinstance(error, MCPError):
        if error.code == -32000 and server.transport == "stdio":
            return (
                f"the server exited during startup (its stderr is in {log})"
                if log
                else "the server exited during startup"
            )
        return f"the server refused the connection: {error.message} (code {error.code})"
    if type(error).__module__.startswith("httpx") and written.url:
        said = str(error).splitlines()[0] if str(error) else type(error).__name__
        return f"cannot reach {_plain_url(written.url)}: {said}"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def http_refusal(status: int, server: ServerConfig) -> str:
    """What an HTTP refusal of ``server`` means and what to do about it (401, 403 and 404 are named)."""
    url = _plain_url(server.as_written.url or "")
    has_token = any(name.lower() == "authorization" for name in server.as_written.headers)
    if status == 401 and has_token:
        return "the server answered 401 Unauthorized: it did not accept the token in the server's Authorization header"
    if status == 401:
        from engine.mcp.oauth.interaction import needs_login

        return needs_login(server.name)
    if status == 403 and has_token:
        return "the server answered 403 Forbidden: it refused access (check the token in the server's headers)"
    if status == 403:
        return f"the server answered 403 Forbidden: it refused access (a login with more scope may help: hive mcp login {server.name})"
    if status == 404:
        usual = "/mcp" if server.transport == "http" else "/sse"
        return f"the server answered 404 Not Found at {url}: check the path ({server.transport} servers usually answer at {usual})"
    return f"the server answered HTTP {status}"


def _auth_problem(error: BaseException, server: str) -> str | None:
    """Why the server's authorization stopped (a login is needed, or it failed), when that is what happened."""
    from engine.mcp.oauth.interaction import LoginNeeded, describe_auth_failure, take_auth_problem
    from engine.mcp.oauth.loopback import LoginFailed

    noted = take_auth_problem(server)
    if isinstance(error, LoginNeeded | LoginFailed) or type(error).__module__.startswith("mcp.client.auth"):
        return describe_auth_failure(error)
    return noted


def _http_status(error: BaseException) -> int | None:
    """The refusal status an HTTP error carries (httpx's HTTPStatusError has the response)."""
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) and status in (401, 403, 404) else None


def without_values(text: str, server: ServerConfig) -> str:
    """``text`` with every expanded value of ``server``'s entry that differs from what is written put back as written.

    An error from a library may quote the URL it was given, or a header; the person sees ``${TOKEN}``, not the token.
    """
    written = server.written
    if written is None:
        return text
    pairs = [(server.url, written.url), (server.command, written.command)]
    pairs += zip(server.args, written.args, strict=False)
    pairs += [(server.env.get(name), template) for name, template in written.env.items()]
    pairs += [(server.headers.get(name), template) for name, template in written.headers.items()]
    if server.oauth is not None and written.oauth is not None:
        pairs += [(getattr(server.oauth, key), getattr(written.oauth, key)) for key in EXPANDED_OAUTH_KEYS]
    pairs += [(os.environ.get(name), f"${{{name}}}") for name in written.variables]
    for value, template in sorted(pairs, key=lambda pair: -len(pair[0] or "")):
        if value and len(value) >= _SHORTEST_REPLACED and template is not None and value != template:
            text = text.replace(value, template)
    return text


def describe_call_error(exc: BaseException, server: str, tool: str, timeout: float) -> str:
    """Why a call to ``tool`` failed, for the model."""
    from mcp import MCPError

    error = leaf(exc)
    said = _auth_problem(error, server)
    if said is not None:
        return f"{tool} on MCP server {server!r}: {said}"
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
