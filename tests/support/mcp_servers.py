"""The MCP servers the tests run: the npm reference servers (``make mcp-servers``) and ``tests/support/mcp_server.py``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.mcp.config import ServerConfig
from engine.mcp.entries import Transport

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "tests" / "mcp_servers" / "node_modules" / ".bin"
EVERYTHING = BIN / "mcp-server-everything"
FILESYSTEM = BIN / "mcp-server-filesystem"
PY_SERVER = Path(__file__).with_name("mcp_server.py")


def approve_project_servers(cwd: Path, environ: dict[str, str] | None = None) -> None:
    """Approve every server the project's files define, as ``hive mcp approve --all`` would (in this HIVE_HOME).

    A broken file has nothing to approve (the test is about how hive reports it).
    """
    from engine.errors import ConfigError
    from engine.mcp.approvals import approve
    from engine.mcp.config import load_servers
    from engine.paths import project_root

    try:
        servers = load_servers(cwd, environ=environ).servers
    except ConfigError:
        return
    approve(project_root(cwd), [server for server in servers if server.awaiting_approval])


def trusted_project_with(root: Path, name: str, command: str | Path, *args: str | Path) -> Path:
    """``root`` as a trusted project whose ``.ironhive`` runs one stdio server ``name``, approved, every tool allowed."""
    from tests.support.trust import trust

    listed = ", ".join(json.dumps(str(arg)) for arg in args)
    (root / ".ironhive").mkdir()
    (root / ".ironhive" / "plugins.yaml").write_text(
        f"plugins:\n  {name}:\n    command: {json.dumps(str(command))}\n    args: [{listed}]\n"
    )
    (root / ".ironhive" / "permissions.yaml").write_text(
        f"permissions:\n  include_defaults: true\n  mcp_tools:\n    - {{pattern: 'mcp__{name}__*', action: allow}}\n"
    )
    approve_project_servers(root)
    trust(root)
    return root


def stdio(name: str, command: str | Path, *args: str, **options: object) -> ServerConfig:
    """A stdio server entry as ``plugins.yaml`` would give it."""
    return ServerConfig(
        name=name,
        transport="stdio",
        source=Path("test"),
        command=str(command),
        args=args,
        **options,  # type: ignore[arg-type]
    )


def python_server(name: str = "py", *args: str, **options: object) -> ServerConfig:
    """The test suite's own server, over stdio."""
    return stdio(name, sys.executable, str(PY_SERVER), *args, **options)


def remote(name: str, transport: Transport, url: str, **options: object) -> ServerConfig:
    """An http or sse server entry."""
    return ServerConfig(name=name, transport=transport, source=Path("test"), url=url, **options)  # type: ignore[arg-type]


def free_port() -> int:
    """A loopback port nobody listens on (the servers take their port from a variable, not 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def everything_over(mode: str) -> Iterator[int]:
    """Run the everything server in ``mode`` (streamableHttp or sse); yields its port once it listens."""
    port = free_port()
    env = {**os.environ, "PORT": str(port)}
    process = subprocess.Popen(
        [str(EVERYTHING), mode], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        _wait_listening(port, process)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the everything server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the everything server did not listen on {port} within {timeout} s")


def require_reference_servers() -> None:
    """Fail with the fix when the npm reference servers are not installed."""
    import pytest

    if not (EVERYTHING.exists() and FILESYSTEM.exists()):
        pytest.fail("the MCP reference servers are not installed: run `make mcp-servers` (npm ci in tests/mcp_servers)")
