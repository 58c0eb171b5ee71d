"""``hive mcp login`` and ``logout`` in the engine: authorize a server up front, or forget what was stored for it.

A login connects to the server with no token (a stored one is ignored, not deleted until the new one
replaces it), so the server's 401 starts the SDK's whole flow: discovery, registration, the browser,
the token. The caller runs it inside :func:`engine.mcp.oauth.interaction.people_present`.
"""

from __future__ import annotations

import io
from pathlib import Path

from engine.errors import UserError
from engine.mcp.config import ServerConfig
from engine.mcp.errors import leaf
from engine.mcp.oauth.loopback import LoginFailed
from engine.mcp.oauth.machine_settings import MACHINE_GRANTS
from engine.mcp.oauth.store import StoredLogin, TokenStore, forget_server
from engine.mcp.sdk_import import import_sdk


def check_can_log_in(server: ServerConfig) -> None:
    """A ``UserError`` when ``server`` cannot be logged in to (a local program, its own Authorization header...)."""
    if server.transport == "stdio":
        raise UserError(f"MCP server {server.name} is a local program (stdio): it needs no login")
    if server.problem is not None:
        raise UserError(f"MCP server {server.name} cannot start: {server.problem}")
    if any(name.lower() == "authorization" for name in server.headers):
        raise UserError(
            f"MCP server {server.name} sends its own Authorization header (its headers in {server.source.name}): "
            "remove it to log in with OAuth"
        )
    if server.oauth is not None and server.oauth.grant in MACHINE_GRANTS:
        raise UserError(
            f"MCP server {server.name} gets its token without a person (oauth.grant: {server.oauth.grant}): no login"
        )


async def log_in(server: ServerConfig) -> StoredLogin:
    """Connect ``server`` with a fresh authorization and list its tools; what is stored now.

    Raises ``LoginFailed`` with what went wrong in one line ("the login failed: ...") when the flow does not complete.
    """
    check_can_log_in(server)
    await import_sdk(server.transport)
    from mcp import Client
    from mcp_types import Implementation

    from engine.mcp.oauth.provider import HiveOAuthProvider, server_auth
    from engine.mcp.transports import open_transport

    auth = server_auth(server, fresh=True)
    assert isinstance(auth, HiveOAuthProvider)
    try:
        transport = open_transport(server, io.StringIO(), auth=auth)
        async with Client(transport, client_info=Implementation(name="hive", version="0.1.0")) as client:
            await client.list_tools()
    except Exception as exc:
        from engine.mcp.oauth.interaction import take_auth_problem

        raise LoginFailed(take_auth_problem(server.name) or f"the login failed: {_why(leaf(exc))}") from None
    stored = auth.store.summary()
    if not stored.has_token:
        raise LoginFailed("the server answered without asking for a login: nothing was stored")
    return stored


def _why(error: BaseException) -> str:
    said = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {said}" if said else type(error).__name__


def log_out(name: str) -> list[Path]:
    """Forget the tokens and registration stored for server ``name`` (under any URL); the files removed."""
    return forget_server(name)


def stored_login(server: ServerConfig) -> StoredLogin | None:
    """What is stored for ``server`` at its current URL (None for a stdio server)."""
    if server.url is None:
        return None
    return TokenStore(server.name, server.url).summary()
