"""client_credentials against a real loopback server: the grant, the client's proof, ``resource``, the retried Bearer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from mcp.client.auth import OAuthFlowError

from engine.mcp.oauth.machine import machine_auth
from engine.mcp.oauth.settings import OAuthEntry
from tests.support.oauth_machine_server import MachineAuthServer, MemoryTokenStorage, basic_credentials

SECRET_SETTINGS = OAuthEntry(grant="client_credentials", client_id="hive-ci", client_secret="s3cret:/+")


def call_mcp(server: MachineAuthServer, settings: OAuthEntry, storage: MemoryTokenStorage, times: int = 1) -> list[int]:
    """POST to the protected endpoint ``times`` times through one client with the machine auth; the statuses."""

    async def body() -> list[int]:
        auth = machine_auth(server.mcp_url, settings, storage)
        async with httpx2.AsyncClient(auth=auth, timeout=30) as client:
            return [(await client.post(server.mcp_url, json={"n": n})).status_code for n in range(times)]

    return asyncio.run(body())


def test_client_secret_basic_gets_a_token_for_the_resource_and_retries_with_it() -> None:
    with MachineAuthServer() as server:
        assert call_mcp(server, SECRET_SETTINGS, MemoryTokenStorage()) == [200]
        [token_request] = server.requests_to("/token")
        assert server.token_requests() == [{"grant_type": "client_credentials", "resource": server.mcp_url}]
        assert basic_credentials(token_request) == ("hive-ci", "s3cret:/+")
        assert server.bearers() == [None, "tok-1"]


def test_client_secret_post_sends_the_secret_in_the_form_not_a_header() -> None:
    settings = OAuthEntry(
        grant="client_credentials",
        client_id="hive-ci",
        client_secret="pw",
        token_endpoint_auth_method="client_secret_post",
    )
    with MachineAuthServer() as server:
        assert call_mcp(server, settings, MemoryTokenStorage()) == [200]
        [token_request] = server.requests_to("/token")
        assert basic_credentials(token_request) is None
        assert server.token_requests() == [
            {
                "grant_type": "client_credentials",
                "client_id": "hive-ci",
                "client_secret": "pw",
                "resource": server.mcp_url,
            }
        ]
        assert server.bearers() == [None, "tok-1"]


def test_the_token_is_reused_until_it_expires() -> None:
    with MachineAuthServer(expires_in=3600) as server:
        assert call_mcp(server, SECRET_SETTINGS, MemoryTokenStorage(), times=3) == [200, 200, 200]
        assert server.issued == ["tok-1"]
        assert server.bearers() == [None, "tok-1", "tok-1", "tok-1"]


def test_an_expired_token_is_replaced_by_a_new_grant() -> None:
    with MachineAuthServer(expires_in=0) as server:
        assert call_mcp(server, SECRET_SETTINGS, MemoryTokenStorage(), times=2) == [200, 200]
        assert server.bearers() == [None, "tok-1", None, "tok-2"]
        assert len(server.token_requests()) == 2


def test_a_stored_token_serves_a_new_provider_without_a_grant() -> None:
    storage = MemoryTokenStorage()
    with MachineAuthServer() as server:
        call_mcp(server, SECRET_SETTINGS, storage)
        assert storage.tokens is not None and storage.tokens.access_token == "tok-1"
        assert call_mcp(server, SECRET_SETTINGS, storage) == [200]
        assert server.bearers() == [None, "tok-1", "tok-1"]
        assert server.issued == ["tok-1"]


def test_scopes_come_from_the_challenge_unless_configured() -> None:
    with MachineAuthServer(scopes_supported=["mcp:read"], challenge_scope="mcp:call") as server:
        call_mcp(server, SECRET_SETTINGS, MemoryTokenStorage())
        configured = OAuthEntry(grant="client_credentials", client_id="c", client_secret="s", scopes=["tools", "admin"])
        call_mcp(server, configured, MemoryTokenStorage())
        assert [request.get("scope") for request in server.token_requests()] == ["mcp:call", "tools admin"]


def test_a_configured_issuer_keeps_the_secret_from_another_authorization_server() -> None:
    settings = OAuthEntry(
        grant="client_credentials", client_id="c", client_secret="s", issuer="https://idp.example.test"
    )
    with MachineAuthServer() as server:
        with pytest.raises(OAuthFlowError, match="issuer"):
            call_mcp(server, settings, MemoryTokenStorage())
        assert [request.path for request in server.requests if request.method == "POST"] == ["/mcp"]


def test_the_matching_issuer_is_accepted() -> None:
    with MachineAuthServer() as server:
        settings = OAuthEntry(grant="client_credentials", client_id="c", client_secret="s", issuer=server.url)
        assert call_mcp(server, settings, MemoryTokenStorage()) == [200]


def ec_key() -> tuple[bytes, Any, str]:
    key = ec.generate_private_key(ec.SECP256R1())
    return _pem(key), key.public_key(), "ES256"


def rsa_key() -> tuple[bytes, Any, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return _pem(key), key.public_key(), "RS256"


def _pem(key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


@pytest.mark.parametrize("make_key", [ec_key, rsa_key])
def test_private_key_jwt_signs_an_assertion_for_the_authorization_server(
    make_key: Callable[[], tuple[bytes, Any, str]], tmp_path: Path
) -> None:
    pem, public_key, algorithm = make_key()
    key_file = tmp_path / "hive.pem"
    key_file.write_bytes(pem)
    settings = OAuthEntry(grant="client_credentials", client_id="hive-ci", private_key_file=str(key_file))
    with MachineAuthServer() as server:
        assert call_mcp(server, settings, MemoryTokenStorage()) == [200]
        [token_request] = server.requests_to("/token")
        [sent] = server.token_requests()
        assert basic_credentials(token_request) is None
        assert sent["grant_type"] == "client_credentials"
        assert sent["resource"] == server.mcp_url
        assert sent["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        assert jwt.get_unverified_header(sent["client_assertion"])["alg"] == algorithm
        claims = jwt.decode(
            sent["client_assertion"], public_key, algorithms=[algorithm], audience=[server.url, f"{server.url}/"]
        )
        assert (claims["iss"], claims["sub"]) == ("hive-ci", "hive-ci")
        assert server.bearers() == [None, "tok-1"]
