"""The network block refuses everything but loopback and Unix sockets, in this process and in subprocesses."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support import netblock
from tests.support.llm_server import LLMServer, text

SITECUSTOMIZE_DIR = Path(__file__).resolve().parents[1] / "support" / "sitecustomize_netblock"
UNROUTABLE = ("10.255.255.1", 80)


@pytest.mark.usefixtures("no_network")
def test_connecting_to_a_remote_address_fails_at_once_with_the_address_in_the_message() -> None:
    with socket.socket() as sock:
        sock.settimeout(5)  # a connect that reached the network would time out, not raise the block's message
        with pytest.raises(OSError, match=r"network blocked by hive tests: 10\.255\.255\.1:80"):
            sock.connect(UNROUTABLE)


@pytest.mark.usefixtures("no_network")
def test_connect_ex_create_connection_and_name_lookups_are_blocked_too() -> None:
    with socket.socket() as sock, pytest.raises(netblock.NetworkBlockedError):
        sock.connect_ex(UNROUTABLE)
    with pytest.raises(netblock.NetworkBlockedError, match=r"example\.com:443"):
        socket.create_connection(("example.com", 443), timeout=5)
    with pytest.raises(netblock.NetworkBlockedError):
        socket.getaddrinfo("pypi.org", 443)
    with pytest.raises(netblock.NetworkBlockedError, match=r"\[2001:db8::1\]:80"):
        socket.create_connection(("2001:db8::1", 80), timeout=5)


@pytest.mark.usefixtures("no_network")
def test_httpx_to_a_remote_host_fails_with_a_connect_error() -> None:
    with pytest.raises(httpx.ConnectError, match="network blocked"):
        httpx.get("http://10.255.255.1/", timeout=5)


@pytest.mark.usefixtures("no_network")
def test_asyncio_connections_are_blocked_too() -> None:
    with pytest.raises(netblock.NetworkBlockedError):
        asyncio.run(asyncio.wait_for(asyncio.open_connection(*UNROUTABLE), timeout=5))


@pytest.mark.usefixtures("no_network")
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_the_local_model_server_stays_reachable(llm_server: LLMServer, host: str) -> None:
    llm_server.script(text("still here"))
    url = f"http://{host}:{llm_server.port}/v1/chat/completions"
    assert httpx.post(url, json={"messages": []}).json()["choices"][0]["message"]["content"] == "still here"


@pytest.mark.usefixtures("no_network")
def test_ipv6_loopback_and_unix_sockets_stay_usable(tmp_path: Path) -> None:
    with LLMServer(text("v6"), host="::1") as server:
        assert httpx.post(f"{server.base_url}/chat/completions", json={"messages": []}).status_code == 200
    path = str(tmp_path / "s.sock")
    with socket.socket(socket.AF_UNIX) as listener, socket.socket(socket.AF_UNIX) as client:
        listener.bind(path)
        listener.listen()
        client.connect(path)
    assert socket.getaddrinfo("localhost", 80)
    assert socket.getaddrinfo(None, 80)


def test_uninstall_restores_the_original_socket_functions() -> None:
    was_installed = netblock.is_installed()  # the suite's conftest installs it for every test
    netblock.uninstall()
    original = socket.socket.connect
    try:
        netblock.install()
        netblock.install()
        assert netblock.is_installed()
        netblock.uninstall()
        assert socket.socket.connect is original
        assert not netblock.is_installed()
    finally:
        if was_installed:
            netblock.install()


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        ("LOCALHOST.", True),
        ("api.localhost", True),
        ("0.0.0.0", True),
        (None, True),
        (b"localhost", True),
        ("10.0.0.1", False),
        ("8.8.8.8", False),
        ("::ffff:8.8.8.8", False),
        ("api.openai.com", False),
        ("localhost.evil.com", False),
    ],
)
def test_loopback_hosts_are_told_apart_from_remote_ones(host: str | bytes | None, local: bool) -> None:
    assert netblock.is_loopback_host(host) is local


def test_a_subprocess_with_the_sitecustomize_on_pythonpath_is_blocked(llm_server: LLMServer) -> None:
    llm_server.script(text("child ok"))
    script = (
        "import socket, urllib.request\n"
        f"body = urllib.request.urlopen(urllib.request.Request('{llm_server.base_url}/chat/completions', "
        "data=b'{\"messages\": []}', headers={'Content-Type': 'application/json'})).read()\n"
        "print('loopback', b'child ok' in body)\n"
        "try:\n"
        f"    socket.create_connection({UNROUTABLE!r}, timeout=5)\n"
        "except OSError as exc:\n"
        "    print('remote', exc)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SITECUSTOMIZE_DIR)}
    command = [sys.executable, "-c", script]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=20, check=True)
    assert result.stdout.splitlines() == ["loopback True", "remote network blocked by hive tests: 10.255.255.1:80"]
