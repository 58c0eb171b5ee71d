"""The ``oauth:`` section threaded into a server's resolved settings: secret expanded, shown as written, fingerprinted."""

from __future__ import annotations

from pathlib import Path

from engine.mcp.config import load_servers
from engine.mcp.errors import without_values
from engine.mcp.options import McpOptions
from engine.paths import user_config_dir

ENTRY = (
    "plugins:\n"
    "  linear:\n"
    "    transport: http\n"
    "    url: https://mcp.example.test/mcp\n"
    "    oauth:\n"
    "      client_id: hive-at-acme\n"
    '      client_secret: "${LINEAR_SECRET}"\n'
    "      scopes: [read, write]\n"
)


def user_server(text: str, secret: str) -> object:
    user_config_dir().mkdir(parents=True, exist_ok=True)
    (user_config_dir() / "plugins.yaml").write_text(text)
    return load_servers(Path.cwd(), McpOptions(), environ={"LINEAR_SECRET": secret}).servers[0]


def test_the_client_secret_is_expanded_like_a_header_and_shown_as_written(tmp_path: Path) -> None:
    server = user_server(ENTRY, "value-of-the-secret")

    assert server.oauth is not None and server.oauth.client_secret == "value-of-the-secret"  # type: ignore[attr-defined]
    assert server.oauth.scopes == ["read", "write"]  # type: ignore[attr-defined]
    assert server.as_written.oauth.client_secret == "${LINEAR_SECRET}"  # type: ignore[attr-defined]
    assert "LINEAR_SECRET" in server.as_written.variables  # type: ignore[attr-defined]
    assert "value-of-the-secret" not in repr(server)
    said = without_values("the server said value-of-the-secret was wrong", server)  # type: ignore[arg-type]
    assert said == "the server said ${LINEAR_SECRET} was wrong"


def test_a_changed_secret_restarts_the_server_but_keeps_its_approval(tmp_path: Path) -> None:
    first = user_server(ENTRY, "one-secret")
    rotated = user_server(ENTRY, "another-secret")
    rescoped = user_server(ENTRY.replace("[read, write]", "[read]"), "one-secret")

    assert first.fingerprint != rotated.fingerprint  # type: ignore[attr-defined]
    assert first.launch_fingerprint == rotated.launch_fingerprint  # type: ignore[attr-defined]
    assert first.launch_fingerprint != rescoped.launch_fingerprint  # type: ignore[attr-defined]


def test_an_entry_without_oauth_keeps_the_approval_fingerprint_it_had(tmp_path: Path) -> None:
    plain = "plugins:\n  web:\n    transport: http\n    url: https://mcp.example.test/mcp\n"
    server = user_server(plain, "")

    assert server.oauth is None  # type: ignore[attr-defined]
    # the value an approval recorded before the oauth: section existed (hive at 9444ee2)
    before = "sha256:dd0b87c500f183f1946f208a74f387a26db4adbd41528984a4d5c0e038c4c6b1"
    assert server.launch_fingerprint == before  # type: ignore[attr-defined]
