"""What a machine grant needs from the ``oauth:`` settings: one clear message for each thing missing, never a secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.mcp.oauth.machine import MachineAuthError, check_machine_settings, machine_auth
from engine.mcp.oauth.settings import OAuthEntry
from tests.support.oauth_machine_server import MemoryTokenStorage

URL = "http://127.0.0.1:9/mcp"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (OAuthEntry(), "needs a person to log in"),
        (OAuthEntry(grant="client_credentials", client_secret="s"), "needs oauth.client_id"),
        (OAuthEntry(grant="client_credentials", client_id="c"), "client_secret_basic needs oauth.client_secret"),
        (
            OAuthEntry(grant="client_credentials", client_id="c", token_endpoint_auth_method="private_key_jwt"),
            "private_key_jwt needs oauth.private_key_file",
        ),
        (
            OAuthEntry(grant="client_credentials", client_id="c", client_secret="s", token_endpoint_auth_method="none"),
            "'none' cannot",
        ),
        (
            OAuthEntry(grant="cross_app_access", client_id="c", client_secret="s"),
            "needs oauth.idp_token_endpoint, oauth.id_token",
        ),
        (
            OAuthEntry(
                grant="cross_app_access",
                client_id="c",
                client_secret="s",
                idp_token_endpoint="http://idp/token",
                id_token="t",
                token_endpoint_auth_method="private_key_jwt",
            ),
            "client_secret_basic or client_secret_post",
        ),
    ],
)
def test_missing_settings_are_named(settings: OAuthEntry, message: str) -> None:
    with pytest.raises(MachineAuthError, match=message):
        check_machine_settings(settings)
    with pytest.raises(MachineAuthError, match=message):
        machine_auth(URL, settings, MemoryTokenStorage())


def test_a_key_file_that_is_no_private_key_is_refused_by_name(tmp_path: Path) -> None:
    key_file = tmp_path / "key.pem"
    key_file.write_text("-----BEGIN PRIVATE KEY-----\nnot a key, top-secret-bytes\n-----END PRIVATE KEY-----\n")
    settings = OAuthEntry(grant="client_credentials", client_id="c", private_key_file=str(key_file))
    with pytest.raises(MachineAuthError, match=r"key\.pem: not an unencrypted PEM private key") as refused:
        machine_auth(URL, settings, MemoryTokenStorage())
    assert "top-secret" not in str(refused.value)


def test_a_missing_key_file_is_refused_by_name(tmp_path: Path) -> None:
    settings = OAuthEntry(grant="client_credentials", client_id="c", private_key_file=str(tmp_path / "absent.pem"))
    with pytest.raises(MachineAuthError, match=r"absent\.pem: cannot read it"):
        machine_auth(URL, settings, MemoryTokenStorage())


def test_a_key_file_chooses_private_key_jwt_and_a_secret_basic() -> None:
    from engine.mcp.oauth.machine import client_authentication

    assert client_authentication(OAuthEntry(grant="client_credentials", private_key_file="k.pem")) == "private_key_jwt"
    assert client_authentication(OAuthEntry(grant="client_credentials", client_secret="s")) == "client_secret_basic"
