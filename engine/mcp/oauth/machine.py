"""Machine grants: a token for an MCP server with nobody present to log in.

:func:`machine_auth` turns a server's ``oauth:`` settings into the ``httpx2.Auth`` its HTTP client uses:

- ``grant: client_credentials`` -- hive's own identity (SEP-1046): the client id with its secret
  (``client_secret_basic``, the default, or ``client_secret_post``), or with a JWT assertion signed
  with ``private_key_file`` (``private_key_jwt``, chosen when a key is given);
- ``grant: cross_app_access`` -- the person's company sign-on (SEP-990, :mod:`engine.mcp.oauth.cross_app`).

Each is the SDK's OAuth provider: on the server's 401 it discovers the authorization server, asks its
token endpoint (with the ``resource`` parameter), retries the request with the Bearer token, and
reuses the token until it expires. ``scopes`` in the settings replace what the server suggests.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
from mcp.client.auth import TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider
from mcp.shared.exceptions import MCPDeprecationWarning

from engine.mcp.oauth.cross_app import CrossAppAccessProvider, IdentityProvider
from engine.mcp.oauth.machine_jwt import AssertionProvider, PrivateKeyError, assertion_provider
from engine.mcp.oauth.machine_settings import (
    MachineAuthError,
    SecretMethod,
    check_machine_settings,
    client_authentication,
)
from engine.mcp.oauth.settings import OAuthEntry


def machine_auth(server_url: str, settings: OAuthEntry, storage: Any) -> httpx2.Auth:
    """The auth for ``server_url`` under ``settings`` (a machine grant), keeping tokens in ``storage``.

    ``storage`` has the SDK's ``TokenStorage`` methods. Raises :class:`MachineAuthError` when the
    settings lack what the grant needs or the private key cannot be used.
    """
    check_machine_settings(settings)
    scope = " ".join(settings.scopes) if settings.scopes else None
    if settings.grant == "cross_app_access":
        return _cross_app_access(server_url, settings, storage, scope)
    method = client_authentication(settings)
    if method == "private_key_jwt":
        assert settings.client_id is not None and settings.private_key_file is not None
        try:
            signer = assertion_provider(settings.client_id, settings.private_key_file)
        except PrivateKeyError as exc:
            raise MachineAuthError(str(exc)) from None
        return _signed_grant(server_url, storage, settings.client_id, signer, scope, settings.issuer)
    assert settings.client_id is not None and settings.client_secret is not None
    return _secret_grant(
        server_url, storage, settings.client_id, settings.client_secret, method, scope, settings.issuer
    )


def _cross_app_access(server_url: str, settings: OAuthEntry, storage: TokenStorage, scope: str | None) -> httpx2.Auth:
    assert settings.client_id and settings.client_secret and settings.idp_token_endpoint and settings.id_token
    method = client_authentication(settings)
    assert method != "private_key_jwt"
    identity_provider = IdentityProvider(
        token_endpoint=settings.idp_token_endpoint,
        id_token=settings.id_token,
        client_id=settings.idp_client_id,
        client_secret=settings.idp_client_secret,
    )
    return CrossAppAccessProvider(
        server_url,
        storage,
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        identity_provider=identity_provider,
        token_endpoint_auth_method=method,
        scope=scope,
        issuer=settings.issuer,
    )


class _SecretGrant(ClientCredentialsOAuthProvider):
    """The SDK's client-secret provider, asking for the configured scopes (the SDK would take the server's)."""

    configured_scope: str | None = None

    async def _perform_authorization(self) -> httpx2.Request:
        if self.configured_scope:
            self.context.client_metadata.scope = self.configured_scope
        return await super()._perform_authorization()


class _SignedGrant(PrivateKeyJWTOAuthProvider):
    """The SDK's ``private_key_jwt`` provider, asking for the configured scopes (the SDK would take the server's)."""

    configured_scope: str | None = None

    async def _perform_authorization(self) -> httpx2.Request:
        if self.configured_scope:
            self.context.client_metadata.scope = self.configured_scope
        return await super()._perform_authorization()


def _secret_grant(
    server_url: str,
    storage: TokenStorage,
    client_id: str,
    secret: str,
    method: SecretMethod,
    scope: str | None,
    issuer: str | None,
) -> httpx2.Auth:
    with _issuer_optional():
        provider = _SecretGrant(server_url, storage, client_id, secret, method, scope, issuer)
    provider.configured_scope = scope
    return provider


def _signed_grant(
    server_url: str,
    storage: TokenStorage,
    client_id: str,
    signer: AssertionProvider,
    scope: str | None,
    issuer: str | None,
) -> httpx2.Auth:
    with _issuer_optional():
        provider = _SignedGrant(server_url, storage, client_id, signer, scope, issuer)
    provider.configured_scope = scope
    return provider


@contextmanager
def _issuer_optional() -> Iterator[None]:
    """Silences the SDK's warning for a provider built without ``issuer``: hive documents ``oauth.issuer`` as optional."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        yield
