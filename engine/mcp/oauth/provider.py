"""The HTTP auth for one remote MCP server: the SDK's OAuth client provider, with hive's store, port and browser.

Only the transport imports this (the SDK is loaded by then). What the provider adds to the SDK's:

- the redirect URI ``http://127.0.0.1:PORT/callback``, its port the ``oauth.callback_port`` or one derived
  from the server's name and URL, so a dynamic registration (which records the URI) stays valid; when a
  dynamically registered client's port is taken by another program (the derived ports share the range the
  system hands out to outgoing connections), the login listens on a free port and registers again;
- the expiry of a stored token, restored when a new process builds the provider (the SDK forgets it and
  would send an expired token, then start a login instead of refreshing: python-sdk #3250);
- the configured scopes, asked for instead of what the server suggests (plus what a step-up adds);
- no browser unless a person is present (:mod:`.interaction`): otherwise a server that wants a login
  fails with :class:`LoginNeeded`, whose message names ``hive mcp login NAME``.
"""

from __future__ import annotations

import hashlib
import logging
import socket
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import anyio
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata

from engine.mcp.oauth.interaction import (
    LoginNeeded,
    authorization_url_problem,
    current_interaction,
    needs_login,
    note_auth_problem,
)
from engine.mcp.oauth.loopback import LoginFailed, LoopbackListener, port_of, redirect_uri, reserve_port
from engine.mcp.oauth.machine_settings import MACHINE_GRANTS
from engine.mcp.oauth.settings import OAuthEntry
from engine.mcp.oauth.store import TokenStore

if TYPE_CHECKING:
    from engine.mcp.config import ServerConfig

FIRST_PORT = 49152
PORTS = 16000
"""Derived callback ports fall in 49152..65151 (the dynamic range)."""
LOGIN_WAIT_S = 600.0
"""How long a login waits for the browser to come back."""
CLIENT_NAME = "hive"

# The SDK logs every failed flow with its traceback; hive reports the failure itself, in one line.
logging.getLogger("mcp.client.auth").setLevel(logging.CRITICAL)


def callback_port(name: str, url: str, settings: OAuthEntry) -> int:
    """The loopback port of ``name``'s redirect: the configured one, else one fixed by its name and URL."""
    if settings.callback_port is not None:
        return settings.callback_port
    digest = hashlib.sha256(f"{name}\n{url}".encode()).digest()
    return FIRST_PORT + int.from_bytes(digest[:4], "big") % PORTS


def server_auth(server: ServerConfig, *, fresh: bool = False) -> Any:
    """The ``httpx2.Auth`` for an http or sse ``server``; None for a stdio one or one that sends its own Authorization.

    ``fresh``: ignore a stored token (``hive mcp login``: the server's 401 starts a new authorization).
    """
    if server.url is None or server.transport == "stdio":
        return None
    if any(name.lower() == "authorization" for name in server.headers):
        return None
    settings = server.oauth or OAuthEntry()
    port = callback_port(server.name, server.url, settings)
    store = TokenStore(server.name, server.url, preregistered_client(settings, port))
    if settings.grant in MACHINE_GRANTS:
        from engine.mcp.oauth.machine import machine_auth

        return machine_auth(server.url, settings, store)
    return HiveOAuthProvider(server.name, server.url, settings, store, port=port, fresh=fresh)


def preregistered_client(settings: OAuthEntry, port: int) -> OAuthClientInformationFull | None:
    """The client the settings name (``client_id``, ``client_secret``), as the SDK's client information; None without one."""
    if settings.client_id is None:
        return None
    method = settings.token_endpoint_auth_method
    if method is None:
        method = "client_secret_basic" if settings.client_secret else "none"
    return OAuthClientInformationFull(
        client_id=settings.client_id,
        client_secret=settings.client_secret or None,
        token_endpoint_auth_method=method,
        redirect_uris=[redirect_uri(port)],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )


def client_metadata(settings: OAuthEntry, port: int) -> OAuthClientMetadata:
    """What hive registers as: a native app with a loopback redirect, PKCE, refresh tokens."""
    return OAuthClientMetadata(
        redirect_uris=[redirect_uri(port)],  # type: ignore[list-item]
        token_endpoint_auth_method="none",
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        client_name=CLIENT_NAME,
        scope=" ".join(settings.scopes) if settings.scopes else None,
    )


class HiveOAuthProvider(OAuthClientProvider):
    """The SDK's authorization-code provider with hive's token store, redirect listener and browser rules."""

    def __init__(
        self, name: str, url: str, settings: OAuthEntry, store: TokenStore, *, port: int, fresh: bool = False
    ) -> None:
        super().__init__(
            url,
            client_metadata(settings, port),
            store,
            redirect_handler=self._send_person,
            callback_handler=self._await_redirect,
            client_metadata_url=settings.client_metadata_url,
        )
        self.name = name
        self.store = store
        self.port = port
        self.configured_scopes = " ".join(settings.scopes) if settings.scopes else None
        self.port_pinned = settings.callback_port is not None or settings.client_id is not None
        """A configured port, or a client registered by hand with its redirect: the login never moves it. (A
        ``client_metadata_url`` does not pin it: the server may not take metadata documents, and one that does
        must let a loopback redirect change its port, RFC 8252 7.3.)"""
        self._fresh = fresh
        self._listener: LoopbackListener | None = None
        self._reserved: socket.socket | None = None

    async def _auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
        """The SDK's flow, stopped before a dynamic registration when nobody can log in (no stray
        registrations from background connections), its failure noted for the error message."""
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is not request and outgoing.method == "POST" and self.context.client_info is None:
                    if current_interaction() is None:
                        raise LoginNeeded(needs_login(self.name))
                if _is_discovery(outgoing, request) and current_interaction() is not None:
                    self._reserve_redirect(may_register=True)
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except Exception as error:
            note_auth_problem(self.name, error)
            raise
        finally:
            await flow.aclose()
            self._release_redirect()

    def _reserve_redirect(self, *, may_register: bool) -> None:
        """Hold the redirect's port before the flow registers (``may_register``) or builds the authorization URL.

        A dynamic registration may move: to a port its stored registration lists, else the derived one,
        else any free port, in which case the stored registration (bound to its old URI) is dropped and
        the flow registers again. Without ``may_register`` the stored registration's port is the only one.
        """
        if self._reserved is not None:
            return
        movable = may_register and not self.port_pinned
        registered = [] if self.port_pinned else _loopback_ports(self.context.client_info)
        preferred = registered if registered and not movable else [*registered, self.port]
        self._reserved = reserve_port(list(dict.fromkeys(preferred)), or_any=movable)
        self.port = port_of(self._reserved)
        self.context.client_metadata.redirect_uris = [redirect_uri(self.port)]  # type: ignore[list-item]
        if movable and self.context.client_info is not None and self.port not in registered:
            self.context.client_info = None

    def _release_redirect(self) -> None:
        reserved, self._reserved = self._reserved, None
        if reserved is not None:
            reserved.close()

    async def _initialize(self) -> None:
        await super()._initialize()
        if self._fresh:
            self._fresh = False
            self.context.current_tokens = None
        if self.context.current_tokens is not None:
            self.context.token_expiry_time = self.store.expires_at()

    async def _perform_authorization_code_grant(self) -> tuple[str, str]:
        if current_interaction() is not None:
            self._reserve_redirect(may_register=False)
        if self.configured_scopes is not None:
            selected = self.context.client_metadata.scope
            holding = self.context.current_tokens is not None  # a step-up: keep what the server added
            self.context.client_metadata.scope = (
                union_scopes(self.configured_scopes, selected) if holding else self.configured_scopes
            )
        return await super()._perform_authorization_code_grant()

    async def _send_person(self, url: str) -> None:
        interaction = current_interaction()
        if interaction is None:
            step_up = self.context.current_tokens is not None  # a 401 dropped the token; a 403 kept it
            raise LoginNeeded(needs_login(self.name, self.context.client_metadata.scope if step_up else None))
        if problem := authorization_url_problem(url):
            raise LoginFailed(problem)
        state = parse_qs(urlsplit(url).query).get("state", [""])[0]
        reserved, self._reserved = self._reserved, None
        assert reserved is not None, "the authorization code grant reserves the port first"
        self._listener = listener = LoopbackListener(reserved, state)
        try:
            await listener.start()
            await interaction.open_url(url, listener.fail)
        except BaseException:
            self._listener = None
            await listener.close()
            raise

    async def _await_redirect(self) -> AuthorizationCodeResult:
        listener, self._listener = self._listener, None
        assert listener is not None
        try:
            with anyio.fail_after(LOGIN_WAIT_S):
                answer = await listener.answer()
        except TimeoutError:
            raise LoginFailed(f"the browser did not come back within {LOGIN_WAIT_S / 60:g} minutes") from None
        finally:
            await listener.close()
        return AuthorizationCodeResult(code=answer.code or "", state=answer.state, iss=answer.iss)


def _is_discovery(outgoing: Any, request: Any) -> bool:
    """Whether the flow's ``outgoing`` request is a metadata lookup: the first steps of a login."""
    return outgoing is not request and outgoing.method == "GET" and "/.well-known/" in outgoing.url.path


def _loopback_ports(client: OAuthClientInformationFull | None) -> list[int]:
    """The ports of the loopback redirect URIs a stored registration lists."""
    ports = []
    for uri in (client.redirect_uris or []) if client is not None else []:
        parts = urlsplit(str(uri))
        if parts.hostname == "127.0.0.1" and parts.port is not None and parts.path == "/callback":
            ports.append(parts.port)
    return ports
