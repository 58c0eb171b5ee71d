"""Cross-app access (SEP-990) against a real loopback IdP and authorization server: exchange, then JWT bearer grant."""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from mcp.client.auth import OAuthFlowError, OAuthTokenError

from engine.mcp.oauth.machine import machine_auth
from engine.mcp.oauth.settings import OAuthEntry
from tests.support.oauth_machine_server import MachineAuthServer, MemoryTokenStorage, basic_credentials, form

ID_TOKEN = "eyJ.person-id-token.sig"


def settings_for(server: MachineAuthServer, **overrides: object) -> OAuthEntry:
    values: dict[str, object] = {
        "grant": "cross_app_access",
        "client_id": "hive-xaa",
        "client_secret": "xaa-secret",
        "idp_token_endpoint": server.idp_token_endpoint,
        "idp_client_id": "hive-at-idp",
        "id_token": ID_TOKEN,
    }
    return OAuthEntry(**(values | overrides))  # type: ignore[arg-type]


def call_mcp(server: MachineAuthServer, settings: OAuthEntry, times: int = 1) -> list[int]:
    async def body() -> list[int]:
        auth = machine_auth(server.mcp_url, settings, MemoryTokenStorage())
        async with httpx2.AsyncClient(auth=auth, timeout=30) as client:
            return [(await client.post(server.mcp_url, json={})).status_code for _ in range(times)]

    return asyncio.run(body())


def test_the_id_token_is_exchanged_for_an_id_jag_then_for_the_servers_token() -> None:
    with MachineAuthServer() as server:
        assert call_mcp(server, settings_for(server), times=2) == [200, 200]
        paths = [request.path for request in server.requests if request.path in ("/idp/token", "/token")]
        assert paths == ["/idp/token", "/token"]
        [exchange] = server.requests_to("/idp/token")
        sent = form(exchange)
        assert sent.pop("audience") in (server.url, f"{server.url}/")
        assert sent == {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
            "subject_token": ID_TOKEN,
            "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
            "resource": server.mcp_url,
            "client_id": "hive-at-idp",
        }
        [grant_request] = server.requests_to("/token")
        assert basic_credentials(grant_request) == ("hive-xaa", "xaa-secret")
        assert form(grant_request) == {
            "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
            "assertion": "id-jag-1",
            "client_id": "hive-xaa",
            "resource": server.mcp_url,
        }
        assert server.bearers() == [None, "tok-1", "tok-1"]


def test_client_secret_post_and_configured_scopes_reach_both_requests() -> None:
    with MachineAuthServer(challenge_scope="mcp:call") as server:
        settings = settings_for(
            server, token_endpoint_auth_method="client_secret_post", scopes=["tools"], idp_client_secret="idp-pw"
        )
        assert call_mcp(server, settings) == [200]
        [exchange] = server.requests_to("/idp/token")
        assert (form(exchange)["scope"], form(exchange)["client_secret"]) == ("tools", "idp-pw")
        [grant_request] = server.requests_to("/token")
        assert basic_credentials(grant_request) is None
        assert {key: form(grant_request)[key] for key in ("client_id", "client_secret", "scope")} == {
            "client_id": "hive-xaa",
            "client_secret": "xaa-secret",
            "scope": "tools",
        }


def test_the_idps_refusal_is_named_without_the_id_token() -> None:
    with MachineAuthServer(idp_refuses=True) as server:
        with pytest.raises(OAuthTokenError, match="identity provider refused.*invalid_grant") as refused:
            call_mcp(server, settings_for(server))
        assert ID_TOKEN not in str(refused.value)
        assert server.requests_to("/token") == []


def test_a_configured_issuer_keeps_the_id_token_and_secret_from_another_server() -> None:
    with MachineAuthServer() as server:
        with pytest.raises(OAuthFlowError, match="not the configured https://as.example.test"):
            call_mcp(server, settings_for(server, issuer="https://as.example.test"))
        assert [request.path for request in server.requests if request.method == "POST"] == ["/mcp"]
