"""An OAuth-protected Streamable HTTP MCP server and its authorization server, in one process, for hive's login tests.

    python tests/support/oauth_server.py PORT EVENTS_FILE [--expires-in N] [--scope S] [--step-up-scope S] [--authorize-at URL]

The MCP server answers at ``/mcp`` (tools ``echo(text)`` and ``whoami()``) and only with a bearer token
it issued (else 401 with ``WWW-Authenticate: Bearer resource_metadata=..., scope=...``); with
``--step-up-scope``, ``tools/call`` also wants that scope (403 ``insufficient_scope`` otherwise).
The authorization server publishes RFC 9728 / RFC 8414 metadata, registers clients dynamically, and
its authorize endpoint redirects at once (no login page) with a code, the state and ``iss``. Tokens
need PKCE (S256) and ``resource``; refresh tokens rotate. Every request is appended to EVENTS_FILE as
a JSON line (path, grant, which token it carried), so tests judge what hive sent, in order.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import secrets
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

mcp = MCPServer("oauth-test", version="1.0")


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


class AuthServer:
    """The authorization server's state (clients, codes, tokens) and the event log."""

    def __init__(self, base: str, events: Path, expires_in: int, scope: str, step_up_scope: str | None) -> None:
        self.base = base
        self.authorize_at: str | None = None
        self.events = events
        self.expires_in = expires_in
        self.scope = scope
        self.step_up_scope = step_up_scope
        self.clients: dict[str, dict[str, Any]] = {}
        self.codes: dict[str, dict[str, Any]] = {}
        self.access: dict[str, str] = {}
        """access token -> its granted scope"""
        self.refresh: dict[str, str] = {}
        self.lock = threading.Lock()

    def log(self, **event: Any) -> None:
        with self.lock, self.events.open("a", encoding="utf-8") as file:
            file.write(json.dumps(event) + "\n")

    @property
    def resource(self) -> str:
        return f"{self.base}/mcp"

    def challenge(self, status: int, scope: str, error: str | None = None) -> Response:
        parts = [f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"', f'scope="{scope}"']
        parts += [f'error="{error}"'] if error else []
        return JSONResponse(
            {"error": error or "invalid_token"}, status, {"WWW-Authenticate": "Bearer " + ", ".join(parts)}
        )


def routes(auth: AuthServer) -> list[Route]:
    """The authorization server's and the resource metadata's endpoints."""

    async def protected_resource(request: Request) -> Response:
        auth.log(path=request.url.path)
        return JSONResponse(
            {"resource": auth.resource, "authorization_servers": [auth.base], "scopes_supported": [auth.scope]}
        )

    async def server_metadata(request: Request) -> Response:
        auth.log(path=request.url.path)
        return JSONResponse(
            {
                "issuer": auth.base,
                "authorization_endpoint": auth.authorize_at or f"{auth.base}/authorize",
                "token_endpoint": f"{auth.base}/token",
                "registration_endpoint": f"{auth.base}/register",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "scopes_supported": [auth.scope],
                "authorization_response_iss_parameter_supported": True,
            }
        )

    async def register(request: Request) -> Response:
        body = await request.json()
        client_id = f"client-{secrets.token_hex(4)}"
        auth.clients[client_id] = body
        auth.log(path="/register", redirect_uris=body.get("redirect_uris"))
        return JSONResponse({**body, "client_id": client_id, "token_endpoint_auth_method": "none"}, 201)

    async def authorize(request: Request) -> Response:
        query = dict(request.query_params)
        auth.log(path="/authorize", scope=query.get("scope"), resource=query.get("resource"))
        client = auth.clients.get(query.get("client_id", ""))
        if client is None or query.get("redirect_uri") not in client.get("redirect_uris", []):
            return JSONResponse({"error": "invalid_client"}, 400)
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return JSONResponse({"error": "invalid_request", "error_description": "PKCE required"}, 400)
        code = f"code-{secrets.token_hex(8)}"
        auth.codes[code] = query
        answer = {"code": code, "state": query.get("state", ""), "iss": auth.base}
        return RedirectResponse(f"{query['redirect_uri']}?{urlencode(answer)}", 302)

    async def token(request: Request) -> Response:
        form = dict(await request.form())
        grant = form.get("grant_type")
        auth.log(path="/token", grant=grant, resource=form.get("resource"))
        if form.get("resource") != auth.resource:
            return JSONResponse({"error": "invalid_target"}, 400)
        if grant == "authorization_code":
            asked = auth.codes.pop(str(form.get("code")), None)
            verifier = str(form.get("code_verifier", ""))
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
            if asked is None or digest != asked.get("code_challenge"):
                return JSONResponse({"error": "invalid_grant"}, 400)
            return issue(asked.get("scope") or auth.scope)
        if grant == "refresh_token":
            scope = auth.refresh.pop(str(form.get("refresh_token")), None)
            if scope is None:
                return JSONResponse({"error": "invalid_grant"}, 400)
            return issue(scope)
        return JSONResponse({"error": "unsupported_grant_type"}, 400)

    def issue(scope: str) -> Response:
        access, refresh = f"at-{secrets.token_hex(8)}", f"rt-{secrets.token_hex(8)}"
        auth.access[access] = scope
        auth.refresh[refresh] = scope
        auth.log(event="issued", access=access, scope=scope)
        body = {"access_token": access, "token_type": "Bearer", "expires_in": auth.expires_in, "refresh_token": refresh}
        return JSONResponse({**body, "scope": scope})

    return [
        Route("/.well-known/oauth-protected-resource/mcp", protected_resource),
        Route("/.well-known/oauth-authorization-server", server_metadata),
        Route("/register", register, methods=["POST"]),
        Route("/authorize", authorize),
        Route("/token", token, methods=["POST"]),
    ]


class BearerGate:
    """ASGI middleware: ``/mcp`` only with a token this server issued (and the step-up scope for tools/call)."""

    def __init__(self, app: Any, auth: AuthServer) -> None:
        self.app = app
        self.auth = auth

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/mcp"):
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        body = await request.body()
        header = request.headers.get("authorization", "")
        token = header.removeprefix("Bearer ") if header.startswith("Bearer ") else None
        method = json.loads(body).get("method") if body.startswith(b"{") else None
        self.auth.log(path="/mcp", method=method, token=token, host=request.headers.get("host"))
        granted = self.auth.access.get(token or "")
        if granted is None:
            response = self.auth.challenge(401, self.auth.scope)
        elif method == "tools/call" and self.auth.step_up_scope and self.auth.step_up_scope not in granted.split():
            response = self.auth.challenge(403, f"{self.auth.scope} {self.auth.step_up_scope}", "insufficient_scope")
        else:
            response = None
        if response is not None:
            await response(scope, receive, send)
            return
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("events", type=Path)
    parser.add_argument("--expires-in", type=int, default=3600)
    parser.add_argument("--scope", default="mcp:read")
    parser.add_argument("--step-up-scope", default=None)
    parser.add_argument("--authorize-at", default=None, help="the authorization endpoint to advertise (an attacker's)")
    options = parser.parse_args()
    base = f"http://127.0.0.1:{options.port}"
    auth = AuthServer(base, options.events, options.expires_in, options.scope, options.step_up_scope)
    auth.authorize_at = options.authorize_at
    app = mcp.streamable_http_app(stateless_http=True, json_response=True)
    app.router.routes[:0] = routes(auth)
    config = uvicorn.Config(BearerGate(app, auth), host="127.0.0.1", port=options.port, log_level="warning")
    ReadyServer(config).run()


class ReadyServer(uvicorn.Server):
    """Says ``listening`` on stdout once its socket listens: the test waits for that line, not for a time."""

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        print("listening", flush=True)


if __name__ == "__main__":
    main()
