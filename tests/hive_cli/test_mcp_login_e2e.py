"""`hive mcp login | logout` and OAuth-protected servers in `list | tools | call`, through the real program.

The server (tests/support/oauth_server.py) is an MCP server and its authorization server in one
process; its authorize endpoint redirects at once, and `--open-with` runs tests/support/oauth_opener.py,
which follows that redirect to hive's loopback listener as a browser would. The server's event log
says what hive sent, in order.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.mcp.oauth.provider import callback_port
from engine.mcp.oauth.settings import OAuthEntry
from tests.support.cli import run_hive
from tests.support.mcp_servers import free_port

SERVER = Path(__file__).resolve().parents[1] / "support" / "oauth_server.py"
OPENER = Path(__file__).resolve().parents[1] / "support" / "oauth_opener.py"


class OAuthServer:
    """A running tests/support/oauth_server.py: its MCP URL and what it saw."""

    def __init__(self, port: int, events: Path) -> None:
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.events_file = events

    def events(self) -> list[dict[str, Any]]:
        if not self.events_file.exists():
            return []
        return [json.loads(line) for line in self.events_file.read_text().splitlines() if line.strip()]

    def grants(self) -> list[str]:
        return [event["grant"] for event in self.events() if event.get("path") == "/token"]

    def tokens_sent(self) -> list[str | None]:
        return [event["token"] for event in self.events() if event.get("path") == "/mcp"]


def wait_listening(process: subprocess.Popen[str]) -> None:
    """Return once the server says it listens (its first line); it exiting first is an error."""
    assert process.stdout is not None
    if process.stdout.readline().strip() != "listening":
        raise RuntimeError(f"the OAuth test server exited with {process.wait()}")


def start_server(tmp_path: Path, label: str, *args: str) -> Iterator[OAuthServer]:
    port = free_port()
    events = tmp_path / f"{label}-events.jsonl"
    process = subprocess.Popen(
        [sys.executable, str(SERVER), str(port), str(events), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        wait_listening(process)
        yield OAuthServer(port, events)
    finally:
        process.terminate()
        process.wait(10)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[OAuthServer]:
    yield from start_server(tmp_path, "main")


@pytest.fixture
def step_up_server(tmp_path: Path) -> Iterator[OAuthServer]:
    yield from start_server(tmp_path, "step-up", "--step-up-scope", "mcp:write")


def configure(tmp_path: Path, url: str, name: str = "svc", extra: str = "") -> Path:
    """A project folder, and ``name`` at ``url`` in the user's plugins.yaml (no approval needed)."""
    config = Path(os.environ["HIVE_HOME"]) / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "plugins.yaml").write_text(f"plugins:\n  {name}:\n    transport: http\n    url: {url}\n{extra}")
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return project


def opener(*flags: str) -> str:
    return " ".join([sys.executable, str(OPENER), *flags])


def token_files() -> list[Path]:
    folder = Path(os.environ["HIVE_HOME"]) / "data" / "mcp-auth"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def stored(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text()))


def test_login_stores_a_private_token_that_list_tools_and_call_then_use(
    tmp_path: Path, oauth_server: OAuthServer
) -> None:
    project = configure(tmp_path, oauth_server.url)
    before = run_hive("mcp", "list", cwd=project, timeout=60)
    assert "needs login: run `hive mcp login svc`" in before.stdout, before.stdout + before.stderr
    assert "-32603" not in before.stdout and "Traceback" not in before.stderr, before.stderr

    login = run_hive("mcp", "login", "svc", "--open-with", opener(), cwd=project, timeout=60)
    assert login.returncode == 0, login.stderr
    assert "Logged in to MCP server svc" in login.stdout and "expires in 60 min" in login.stdout, login.stdout
    [path] = token_files()
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    saved = stored(path)
    access = saved["tokens"]["access_token"]
    assert saved["url"] == oauth_server.url and saved["expires_at"] > 0
    assert access not in login.stdout + login.stderr

    tools = run_hive("mcp", "tools", "svc", cwd=project, timeout=60)
    called = run_hive("mcp", "call", "svc", "echo", "--args", '{"text": "through oauth"}', cwd=project, timeout=60)
    listed = run_hive("mcp", "list", cwd=project, timeout=60)
    assert "mcp__svc__echo" in tools.stdout, tools.stderr
    assert called.returncode == 0 and "through oauth" in called.stdout, called.stderr
    assert "ready" in listed.stdout, listed.stdout
    assert oauth_server.grants() == ["authorization_code"], "one login, no refresh while the token is fresh"
    after_login = oauth_server.tokens_sent()[-1]
    assert after_login == access
    for output in (tools, called, listed):
        assert access not in output.stdout + output.stderr
    logs = Path(os.environ["HIVE_HOME"]) / "data" / "mcp-logs"
    for log in logs.glob("*") if logs.is_dir() else []:
        assert access not in log.read_text(errors="replace")


def test_an_expired_token_is_refreshed_by_the_next_process(tmp_path: Path, oauth_server: OAuthServer) -> None:
    """python-sdk #3250: a provider built in a new process forgets the expiry; hive's store keeps it."""
    project = configure(tmp_path, oauth_server.url)
    assert run_hive("mcp", "login", "svc", "--open-with", opener(), cwd=project, timeout=60).returncode == 0
    [path] = token_files()
    saved = stored(path)
    path.write_text(json.dumps({**saved, "expires_at": 1.0}))  # as if its hour had passed

    tools = run_hive("mcp", "tools", "svc", cwd=project, timeout=60)

    assert tools.returncode == 0, tools.stderr
    assert oauth_server.grants() == ["authorization_code", "refresh_token"]
    renewed = stored(path)["tokens"]
    assert renewed["access_token"] != saved["tokens"]["access_token"]
    assert oauth_server.tokens_sent()[-1] == renewed["access_token"]
    assert saved["tokens"]["access_token"] not in oauth_server.tokens_sent()[-3:]


def test_a_failed_refresh_asks_for_a_login_instead_of_opening_a_browser(
    tmp_path: Path, oauth_server: OAuthServer
) -> None:
    project = configure(tmp_path, oauth_server.url)
    assert run_hive("mcp", "login", "svc", "--open-with", opener(), cwd=project, timeout=60).returncode == 0
    [path] = token_files()
    saved = stored(path)
    saved["tokens"]["refresh_token"] = "rt-revoked"
    path.write_text(json.dumps({**saved, "expires_at": 1.0}))

    tools = run_hive("mcp", "tools", "svc", cwd=project, timeout=60)

    assert tools.returncode == 1
    assert "needs login: run `hive mcp login svc`" in tools.stderr, tools.stderr
    assert "/authorize" not in [event.get("path") for event in oauth_server.events()][-5:]


def test_logout_forgets_the_token(tmp_path: Path, oauth_server: OAuthServer) -> None:
    project = configure(tmp_path, oauth_server.url)
    assert run_hive("mcp", "login", "svc", "--open-with", opener(), cwd=project, timeout=60).returncode == 0
    assert len(token_files()) == 1

    out = run_hive("mcp", "logout", "svc", cwd=project)
    again = run_hive("mcp", "logout", "svc", cwd=project)
    tools = run_hive("mcp", "tools", "svc", cwd=project, timeout=60)

    assert out.returncode == 0 and "Logged out of MCP server svc" in out.stdout, out.stderr
    assert token_files() == []
    assert "no login stored" in again.stdout
    assert tools.returncode == 1 and "needs login" in tools.stderr, tools.stderr


def test_an_answer_with_another_state_is_refused(tmp_path: Path, oauth_server: OAuthServer) -> None:
    project = configure(tmp_path, oauth_server.url)

    login = run_hive("mcp", "login", "svc", "--open-with", opener("--tamper-state"), cwd=project, timeout=60)

    assert login.returncode == 1
    assert "MCP server svc: the login failed: the authorization answer's state did not match" in login.stderr
    assert "Traceback" not in login.stderr
    assert "authorization_code" not in oauth_server.grants()
    assert all("tokens" not in stored(path) for path in token_files())


# Other schemes never get here: the SDK refuses metadata whose endpoints are not http(s) URLs.
@pytest.mark.parametrize("endpoint", ["http://attacker.example/authorize", "http://10.0.0.7:8080/authorize"])
def test_an_authorization_address_that_is_not_https_is_never_opened(tmp_path: Path, endpoint: str) -> None:
    record = tmp_path / "opened.txt"
    for server in start_server(tmp_path, "hostile", f"--authorize-at={endpoint}"):
        project = configure(tmp_path, server.url)

        login = run_hive("mcp", "login", "svc", "--open-with", opener("--record", str(record)), cwd=project, timeout=60)

        assert login.returncode == 1, login.stdout + login.stderr
        assert "is not https (nor http on this machine), so it was not opened" in login.stderr, login.stderr
        assert "Traceback" not in login.stderr
        assert not record.exists()  # the --open-with command never ran
        assert "authorization_code" not in server.grants()


def test_a_token_is_never_sent_to_another_url(tmp_path: Path, oauth_server: OAuthServer) -> None:
    project = configure(tmp_path, oauth_server.url)
    assert run_hive("mcp", "login", "svc", "--open-with", opener(), cwd=project, timeout=60).returncode == 0
    for other in start_server(tmp_path, "other"):
        configure(tmp_path, other.url)  # the same name, now at another server

        tools = run_hive("mcp", "tools", "svc", cwd=project, timeout=60)

        assert tools.returncode == 1 and "needs login: run `hive mcp login svc`" in tools.stderr, tools.stderr
        assert other.tokens_sent() and set(other.tokens_sent()) == {None}


def test_a_step_up_logs_in_again_with_open_with_and_names_the_scope_without(
    tmp_path: Path, step_up_server: OAuthServer
) -> None:
    project = configure(tmp_path, step_up_server.url)
    assert run_hive("mcp", "login", "svc", "--open-with", opener(), cwd=project, timeout=60).returncode == 0

    plain = run_hive("mcp", "call", "svc", "echo", "--args", '{"text": "x"}', cwd=project, timeout=60)
    widened = run_hive(
        "mcp", "call", "svc", "echo", "--args", '{"text": "wider"}', "--open-with", opener(), cwd=project, timeout=60
    )

    assert plain.returncode == 1
    assert "needs login: run `hive mcp login svc` (the server asks for the scope" in plain.stderr, plain.stderr
    assert "mcp:write" in plain.stderr
    assert widened.returncode == 0 and "wider" in widened.stdout, widened.stderr
    authorized = [event["scope"] for event in step_up_server.events() if event.get("path") == "/authorize"]
    assert authorized == ["mcp:read", "mcp:read mcp:write"]


def holding(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port``, as another program holding the port would have."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", port))
    sock.listen()
    return sock


def registered_ports(server: OAuthServer) -> list[int]:
    return [
        int(uri.rsplit(":", 1)[1].split("/")[0])
        for event in server.events()
        if event.get("path") == "/register"
        for uri in event["redirect_uris"]
    ]


def test_a_login_whose_derived_port_is_taken_listens_on_a_free_one(tmp_path: Path, oauth_server: OAuthServer) -> None:
    project = configure(tmp_path, oauth_server.url)
    derived = callback_port("svc", oauth_server.url, OAuthEntry())
    with holding(derived):
        login = run_hive("mcp", "login", "svc", "--open-with", opener(), cwd=project, timeout=60)
        called = run_hive("mcp", "call", "svc", "echo", "--args", '{"text": "moved"}', cwd=project, timeout=60)

    assert login.returncode == 0, login.stderr
    assert called.returncode == 0 and "moved" in called.stdout, called.stderr
    [port] = registered_ports(oauth_server)
    assert port != derived
    assert oauth_server.grants() == ["authorization_code"]


def test_a_client_metadata_url_the_server_does_not_use_leaves_a_taken_port_free_to_move(
    tmp_path: Path, oauth_server: OAuthServer
) -> None:
    metadata = "    oauth:\n      client_metadata_url: https://client.example/hive.json\n"
    project = configure(tmp_path, oauth_server.url, extra=metadata)
    derived = callback_port("svc", oauth_server.url, OAuthEntry())
    with holding(derived):
        login = run_hive("mcp", "login", "svc", "--open-with", opener(), cwd=project, timeout=60)

    assert login.returncode == 0, login.stderr
    [port] = registered_ports(oauth_server)
    assert port != derived and oauth_server.grants() == ["authorization_code"]


def test_a_configured_callback_port_that_is_taken_fails_the_login_naming_it(
    tmp_path: Path, oauth_server: OAuthServer
) -> None:
    port = free_port()
    project = configure(tmp_path, oauth_server.url, extra=f"    oauth:\n      callback_port: {port}\n")
    with holding(port):
        login = run_hive("mcp", "login", "svc", "--open-with", opener(), cwd=project, timeout=60)

    assert login.returncode == 1, login.stdout + login.stderr
    assert f"cannot listen on 127.0.0.1:{port} for the login's redirect" in login.stderr, login.stderr
    assert "set another oauth.callback_port" in login.stderr and "Traceback" not in login.stderr
    assert registered_ports(oauth_server) == [] and oauth_server.grants() == []


def test_login_of_a_stdio_server_is_refused_in_one_line(tmp_path: Path) -> None:
    config = Path(os.environ["HIVE_HOME"]) / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "plugins.yaml").write_text("plugins:\n  local:\n    command: cat\n")

    login = run_hive("mcp", "login", "local", cwd=tmp_path)

    assert login.returncode == 2, login.stderr
    assert "local program (stdio): it needs no login" in login.stderr
