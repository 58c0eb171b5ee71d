"""The ``oauth:`` section of a server's ``plugins.yaml`` entry: how hive gets a token for it.

Without the section hive still authorizes a server that answers 401, with what the server publishes
(its metadata, dynamic registration). The section names a pre-registered client, the scopes to ask
for, a client ID metadata document, the loopback port for the redirect, or a machine grant
(``client_credentials``) for servers used with no person present.

```yaml
plugins:
  linear:
    transport: http
    url: https://mcp.linear.app/mcp
    oauth:
      client_id: hive-at-acme            # pre-registered (else dynamic registration)
      client_secret: "${LINEAR_SECRET}"  # ${VAR} expanded like env and headers
      scopes: [read, write]
      callback_port: 33418               # the loopback redirect's port
```
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from engine.config.validation import StrictRecord

Grant = Literal["authorization_code", "client_credentials", "cross_app_access"]
TokenEndpointAuth = Literal["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]
Port = Annotated[int, Meta(ge=1, le=65535)]


class OAuthEntry(StrictRecord, frozen=True):
    """A server's ``oauth:`` settings; every key optional."""

    grant: Grant = "authorization_code"
    """``authorization_code``: a person logs in (``hive mcp login``); ``client_credentials``: hive's own identity."""
    client_id: str | None = None
    """A client registered with the authorization server beforehand (else dynamic registration or CIMD)."""
    client_secret: str | None = None
    """That client's secret (``${VAR}`` expanded); none for a public client."""
    token_endpoint_auth_method: TokenEndpointAuth | None = None
    """How the client proves itself at the token endpoint (default: what registration or the server settles)."""
    scopes: list[str] | None = None
    """The scopes to ask for (default: the 401's ``scope``, else the server's ``scopes_supported``)."""
    client_metadata_url: str | None = None
    """An HTTPS URL serving hive's client ID metadata document, used where the server supports CIMD."""
    callback_port: Port | None = None
    """The loopback port the browser is redirected to (default: one fixed per server, so a registration stays valid)."""
    private_key_file: str | None = None
    """A PEM private key for ``private_key_jwt`` (client_credentials signed with a JWT assertion)."""
    issuer: str | None = None
    """The authorization server the machine credentials belong to (its issuer URL): hive sends them to no
    other. Default: the one the server's metadata names."""
    idp_token_endpoint: str | None = None
    """``cross_app_access``: the enterprise identity provider's token endpoint, where hive exchanges the ID
    token for an identity assertion grant (RFC 8693)."""
    idp_client_id: str | None = None
    """``cross_app_access``: hive's client id at the identity provider."""
    idp_client_secret: str | None = None
    """``cross_app_access``: that client's secret at the identity provider (``${VAR}`` expanded), if it has one."""
    id_token: str | None = None
    """``cross_app_access``: the person's ID token from the identity provider's single sign-on (``${VAR}`` expanded)."""


EXPANDED_OAUTH_KEYS = (
    "client_secret",
    "issuer",
    "idp_token_endpoint",
    "idp_client_id",
    "idp_client_secret",
    "id_token",
)
"""The keys whose ``${VAR}`` are expanded (secrets and what a company's sign-on hands over), like a header's value."""
