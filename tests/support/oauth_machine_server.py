"""A protected MCP endpoint, its authorization server and a company IdP on one loopback port, for machine grants.

- ``POST /mcp`` answers 200 only with ``Authorization: Bearer <a token this server issued>``, else 401 with
  ``WWW-Authenticate: Bearer resource_metadata=...`` (and ``scope=`` when ``challenge_scope`` is set);
- ``GET /.well-known/oauth-protected-resource/mcp`` names the endpoint (``resource``) and the authorization server;
- ``GET /.well-known/oauth-authorization-server`` is that server's metadata (issuer: the root URL);
- ``POST /token`` issues ``tok-1``, ``tok-2``... valid for ``expires_in`` seconds, to any request;
- ``POST /idp/token`` issues an ID-JAG ``id-jag-1``... (or refuses, with ``idp_refuses``).

It judges nothing about the client: every request is recorded and the tests read what the client sent
(:func:`form`, :func:`basic_credentials`, :meth:`MachineAuthServer.token_requests`).
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qsl, unquote

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from tests.support.local_http import LocalServer, RecordedRequest, ResponseWriter

PRM_PATH = "/.well-known/oauth-protected-resource/mcp"
ASM_PATH = "/.well-known/oauth-authorization-server"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"


class MachineAuthServer(LocalServer):
    """The three servers a machine grant talks to; ``expires_in`` and the scopes are settable per test."""

    name = "oauth_machine_server"

    def __init__(
        self,
        *,
        expires_in: int = 3600,
        scopes_supported: list[str] | None = None,
        challenge_scope: str | None = None,
        idp_refuses: bool = False,
    ) -> None:
        super().__init__()
        self.expires_in = expires_in
        self.scopes_supported = scopes_supported
        self.challenge_scope = challenge_scope
        self.idp_refuses = idp_refuses
        self.issued: list[str] = []
        """Access tokens issued at ``/token``, in order."""
        self.assertions: list[str] = []
        """ID-JAGs issued at ``/idp/token``, in order."""

    @property
    def mcp_url(self) -> str:
        return f"{self.url}/mcp"

    @property
    def token_endpoint(self) -> str:
        return f"{self.url}/token"

    @property
    def idp_token_endpoint(self) -> str:
        return f"{self.url}/idp/token"

    def handle(self, request: RecordedRequest, writer: ResponseWriter) -> None:
        route = (request.method, request.path.split("?", 1)[0])
        if route == ("POST", "/mcp"):
            self._mcp(request, writer)
        elif route == ("GET", PRM_PATH):
            writer.send_json(200, self._resource_metadata())
        elif route == ("GET", ASM_PATH):
            writer.send_json(200, self._server_metadata())
        elif route == ("POST", "/token"):
            self.issued.append(f"tok-{len(self.issued) + 1}")
            writer.send_json(
                200, {"access_token": self.issued[-1], "token_type": "Bearer", "expires_in": self.expires_in}
            )
        elif route == ("POST", "/idp/token"):
            self._idp(writer)
        else:
            writer.send_json(404, {"error": "not_found"})

    def requests_to(self, path: str) -> list[RecordedRequest]:
        """The requests received at ``path``, in order."""
        return [request for request in self.requests if request.path.split("?", 1)[0] == path]

    def token_requests(self) -> list[dict[str, str]]:
        """The forms of the requests to ``/token``, in order."""
        return [form(request) for request in self.requests_to("/token")]

    def bearers(self) -> list[str | None]:
        """The Bearer token of each request to ``/mcp`` (None: sent without one), in order."""
        return [_bearer(request) for request in self.requests_to("/mcp")]

    def _mcp(self, request: RecordedRequest, writer: ResponseWriter) -> None:
        if _bearer(request) in self.issued:
            writer.send_json(200, {"ok": True})
            return
        challenge = f'Bearer resource_metadata="{self.url}{PRM_PATH}"'
        if self.challenge_scope:
            challenge += f', scope="{self.challenge_scope}"'
        writer.send_json(401, {"error": "invalid_token"}, headers=[("WWW-Authenticate", challenge)])

    def _resource_metadata(self) -> dict[str, Any]:
        metadata: dict[str, Any] = {"resource": self.mcp_url, "authorization_servers": [self.url]}
        if self.scopes_supported is not None:
            metadata["scopes_supported"] = self.scopes_supported
        return metadata

    def _server_metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": self.token_endpoint,
            "response_types_supported": ["code"],
            "grant_types_supported": ["client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "private_key_jwt"],
        }

    def _idp(self, writer: ResponseWriter) -> None:
        if self.idp_refuses:
            writer.send_json(400, {"error": "invalid_grant", "error_description": "the ID token has expired"})
            return
        self.assertions.append(f"id-jag-{len(self.assertions) + 1}")
        writer.send_json(
            200, {"access_token": self.assertions[-1], "issued_token_type": ID_JAG_TYPE, "token_type": "N_A"}
        )


def form(request: RecordedRequest) -> dict[str, str]:
    """The url-encoded form a request carried."""
    return dict(parse_qsl(request.body.decode(), keep_blank_values=True))


def basic_credentials(request: RecordedRequest) -> tuple[str, str] | None:
    """The (client id, secret) of a request's ``Authorization: Basic`` header (RFC 6749 2.3.1 decoding), or None."""
    header = request.headers.get("authorization", "")
    if not header.startswith("Basic "):
        return None
    client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
    return unquote(client_id), unquote(secret)


def _bearer(request: RecordedRequest) -> str | None:
    header = request.headers.get("authorization", "")
    return header[7:] if header.startswith("Bearer ") else None


class MemoryTokenStorage:
    """The SDK's ``TokenStorage`` in memory; ``saved`` counts the tokens it was given."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.saved = 0

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.saved += 1

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info
