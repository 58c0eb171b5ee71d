"""Cross-app access (SEP-990, enterprise-managed authorization): a token from the person's company sign-on.

The person signed in to the company's identity provider (IdP) once; hive holds the ID token of that
sign-on. For a server that answers 401, hive discovers the server's authorization server as for any
login (protected-resource metadata, then the server's metadata), then

1. exchanges the ID token at the IdP for an identity assertion authorization grant (ID-JAG), a JWT
   naming the authorization server (``audience``) and the MCP server (``resource``) -- RFC 8693 token
   exchange;
2. presents the ID-JAG at the authorization server's token endpoint with the RFC 7523 JWT bearer grant,
   authenticating as hive's client there, and receives the access token.

No browser, no person: the provider is the SDK's :class:`OAuthClientProvider` with a pre-set client and
these two requests in place of the authorization-code grant. With ``oauth.issuer`` set, only that
authorization server ever sees the ID-JAG and the client secret.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthTokenError, TokenStorage
from mcp.client.auth.utils import issuers_match
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthClientMetadata, OAuthMetadata

TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
IDP_TIMEOUT = httpx2.Timeout(30.0)
_FORM = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}


@dataclass(frozen=True)
class IdentityProvider:
    """The company IdP hive exchanges the person's ID token at, and hive's client there."""

    token_endpoint: str
    id_token: str = field(repr=False)
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)

    async def identity_assertion(self, audience: str, resource: str, scope: str | None) -> str:
        """An ID-JAG for the authorization server ``audience`` and the MCP server ``resource`` (RFC 8693)."""
        form = {
            "grant_type": TOKEN_EXCHANGE_GRANT,
            "requested_token_type": ID_JAG_TYPE,
            "subject_token": self.id_token,
            "subject_token_type": ID_TOKEN_TYPE,
            "audience": audience,
            "resource": resource,
        }
        if scope:
            form["scope"] = scope
        if self.client_id:
            form["client_id"] = self.client_id
        if self.client_secret:
            form["client_secret"] = self.client_secret
        async with httpx2.AsyncClient(timeout=IDP_TIMEOUT, follow_redirects=False) as client:
            response = await client.post(self.token_endpoint, data=form, headers=_FORM)
        return _issued_assertion(response)


def _issued_assertion(response: httpx2.Response) -> str:
    """The ID-JAG in the IdP's answer; raises :class:`OAuthTokenError` naming the IdP's refusal."""
    body = _json_object(response)
    if response.status_code != 200:
        reason = " ".join(str(body[key]) for key in ("error", "error_description") if key in body)
        raise OAuthTokenError(
            f"the identity provider refused the token exchange (HTTP {response.status_code}){': ' if reason else ''}{reason[:200]}"
        )
    assertion = body.get("access_token")
    if not isinstance(assertion, str) or body.get("issued_token_type") != ID_JAG_TYPE:
        raise OAuthTokenError("the identity provider's token exchange answer holds no identity assertion grant")
    return assertion


def _json_object(response: httpx2.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


class CrossAppAccessProvider(OAuthClientProvider):
    """An ``httpx2.Auth`` that gets the MCP server's token through the IdP's ID-JAG (SEP-990)."""

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        *,
        client_id: str,
        client_secret: str,
        identity_provider: IdentityProvider,
        token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_basic",
        scope: str | None = None,
        issuer: str | None = None,
    ) -> None:
        metadata = OAuthClientMetadata(
            redirect_uris=None,
            grant_types=[JWT_BEARER_GRANT_TYPE],
            token_endpoint_auth_method=token_endpoint_auth_method,
            scope=scope,
        )
        super().__init__(server_url, metadata, storage, None, None)
        self._client = OAuthClientInformationFull(
            redirect_uris=None,
            client_id=client_id,
            client_secret=client_secret,
            grant_types=[JWT_BEARER_GRANT_TYPE],
            token_endpoint_auth_method=token_endpoint_auth_method,
            scope=scope,
        )  # not stamped with ``issuer``: the SDK would discard a client bound elsewhere and register anew
        self._identity_provider = identity_provider
        self._configured_scope = scope
        self._issuer = issuer

    async def _initialize(self) -> None:
        self.context.current_tokens = await self.context.storage.get_tokens()
        self.context.client_info = self._client
        self._initialized = True

    def _select_authorization_server(self, advertised: list[str]) -> str:
        pinned = [server for server in advertised if self._issuer is not None and issuers_match(server, self._issuer)]
        return (pinned or advertised)[0]

    async def _perform_authorization(self) -> httpx2.Request:
        """The JWT bearer grant request, carrying a fresh ID-JAG from the IdP."""
        metadata = self._authorization_server()
        scope = self._configured_scope or self.context.client_metadata.scope
        resource = self.context.get_resource_url()
        assertion = await self._identity_provider.identity_assertion(str(metadata.issuer), resource, scope)
        form: dict[str, str] = {
            "grant_type": JWT_BEARER_GRANT_TYPE,
            "assertion": assertion,
            "client_id": self._client.client_id or "",
            "resource": resource,
        }
        if scope:
            form["scope"] = scope
        form, headers = self.context.prepare_token_auth(form, {"Content-Type": "application/x-www-form-urlencoded"})
        return httpx2.Request("POST", self._get_token_endpoint(), data=form, headers=headers)

    def _authorization_server(self) -> OAuthMetadata:
        """The discovered authorization server's metadata, which must be the configured issuer's if one is set."""
        metadata = self.context.oauth_metadata
        if metadata is None:
            raise OAuthFlowError(
                "the server's authorization server publishes no metadata (needed for cross-app access)"
            )
        if self._issuer is not None and not issuers_match(str(metadata.issuer), self._issuer):
            self.context.oauth_metadata = None
            self.context.clear_tokens()
            raise OAuthFlowError(
                f"the server sends hive to the authorization server {metadata.issuer}, not the configured {self._issuer}"
            )
        return metadata
