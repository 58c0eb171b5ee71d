"""The OAuth token store: one private file per server and URL, expiry kept, a pre-registered client never written."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from engine.mcp.config import ServerConfig
from engine.mcp.oauth.provider import callback_port, preregistered_client, server_auth
from engine.mcp.oauth.settings import OAuthEntry
from engine.mcp.oauth.store import TokenStore, forget_server, token_path

URL = "https://mcp.example.test/mcp"


def _run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


def test_tokens_are_kept_in_a_private_file_with_when_they_expire() -> None:
    store = TokenStore("linear", URL)
    before = time.time()
    _run(store.set_tokens(OAuthToken(access_token="at-1", expires_in=3600, refresh_token="rt-1")))

    mode = stat.S_IMODE(store.path.stat().st_mode)
    assert mode == 0o600 and stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    saved = json.loads(store.path.read_text())
    assert saved["server"] == "linear" and saved["url"] == URL
    assert before + 3600 <= saved["expires_at"] <= time.time() + 3600
    assert not list(store.path.parent.glob(".*.tmp")), "written through a temporary file, then renamed"


def test_a_new_store_reads_the_token_back_with_its_time_left() -> None:
    _run(TokenStore("linear", URL).set_tokens(OAuthToken(access_token="at-1", expires_in=3600)))
    path = token_path("linear", URL)
    saved = json.loads(path.read_text())
    path.write_text(json.dumps({**saved, "expires_at": time.time() + 60}))

    again = TokenStore("linear", URL)
    token = _run(again.get_tokens())

    assert token is not None and token.access_token == "at-1"
    assert token.expires_in is not None and 0 < token.expires_in <= 60
    assert again.expires_at() == json.loads(path.read_text())["expires_at"]


def test_a_token_is_never_read_back_for_another_url_or_server() -> None:
    _run(TokenStore("linear", URL).set_tokens(OAuthToken(access_token="at-1")))

    assert _run(TokenStore("linear", "https://elsewhere.example.test/mcp").get_tokens()) is None
    assert _run(TokenStore("github", URL).get_tokens()) is None
    moved = token_path("linear", URL).read_text().replace(URL, "https://elsewhere.example.test/mcp")
    token_path("linear", URL).write_text(moved)  # a file whose URL is not the one asked for
    assert _run(TokenStore("linear", URL).get_tokens()) is None


def test_a_registration_is_kept_beside_the_token_and_forget_server_removes_both() -> None:
    store = TokenStore("linear", URL)
    registered = OAuthClientInformationFull(client_id="dyn-1", redirect_uris=["http://127.0.0.1:50000/callback"])  # type: ignore[list-item]
    _run(store.set_client_info(registered))
    _run(store.set_tokens(OAuthToken(access_token="at-1")))
    _run(TokenStore("linear", "https://other.example.test/mcp").set_tokens(OAuthToken(access_token="at-2")))
    _run(TokenStore("linear-two", URL).set_tokens(OAuthToken(access_token="at-3")))

    client = _run(TokenStore("linear", URL).get_client_info())
    gone = forget_server("linear")

    assert client is not None and client.client_id == "dyn-1"
    assert len(gone) == 2
    assert _run(TokenStore("linear", URL).get_tokens()) is None
    assert _run(TokenStore("linear-two", URL).get_tokens()) is not None


def test_a_preregistered_client_is_offered_but_its_secret_never_written() -> None:
    settings = OAuthEntry(client_id="hive-at-acme", client_secret="s3cret-value")
    client = preregistered_client(settings, 50001)
    store = TokenStore("linear", URL, client)

    _run(store.set_client_info(client))  # type: ignore[arg-type]
    _run(store.set_tokens(OAuthToken(access_token="at-1")))

    offered = _run(store.get_client_info())
    assert offered is not None and offered.client_secret == "s3cret-value"
    assert offered.token_endpoint_auth_method == "client_secret_basic"
    assert "s3cret-value" not in store.path.read_text()
    assert store.summary().client_id == "hive-at-acme"


def test_an_unreadable_or_broken_file_is_no_token() -> None:
    path = token_path("linear", URL)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")

    assert _run(TokenStore("linear", URL).get_tokens()) is None
    _run(TokenStore("linear", URL).set_tokens(OAuthToken(access_token="at-1")))  # replaced, not appended to
    assert json.loads(path.read_text())["tokens"]["access_token"] == "at-1"


def test_the_callback_port_is_the_configured_one_else_fixed_per_server_and_url() -> None:
    default = OAuthEntry()
    assert callback_port("linear", URL, OAuthEntry(callback_port=33418)) == 33418
    assert callback_port("linear", URL, default) == callback_port("linear", URL, default)
    assert 49152 <= callback_port("linear", URL, default) < 65536
    assert callback_port("linear", URL, default) != callback_port("linear", URL + "/v2", default)


def test_no_oauth_for_stdio_or_a_server_with_its_own_authorization_header() -> None:
    http = ServerConfig(name="web", transport="http", source=Path("test"), url=URL)
    with_header = ServerConfig(
        name="web", transport="http", source=Path("test"), url=URL, headers={"Authorization": "Bearer x"}
    )
    stdio = ServerConfig(name="local", transport="stdio", source=Path("test"), command="cat")

    assert server_auth(http) is not None
    assert server_auth(with_header) is None and server_auth(stdio) is None
    assert os.environ["HIVE_HOME"] in str(server_auth(http).store.path)
