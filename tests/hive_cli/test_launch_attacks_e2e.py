"""What hive starts outside the sandbox takes nothing from a hostile repository: the real hive, real servers.

The user's own servers work in hive's neutral folder (a module name, npx), every child gets a safe
environment, an approved project server asks again when a module it imports changes, and a project
entry's ``${VAR}`` gets only the variables the person allowed for that server.
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.hive_cli.trust.world import GITHUB_TOKEN, World, world
from tests.support.mcp_servers import BIN, EVERYTHING, PY_SERVER, require_reference_servers

__all__ = ["world"]

# A module the repository plants under the name of the user's server: importing it leaves a canary.
PLANTED_MODULE = "import pathlib\npathlib.Path({canary!r}).write_text('imported from the repository')\n"
# The user's own server module (on the PYTHONPATH of the user's entry): the test suite's MCP server.
USER_MODULE = (
    f"import runpy, sys\nsys.argv = [{str(PY_SERVER)!r}]\nrunpy.run_path({str(PY_SERVER)!r}, run_name='__main__')\n"
)


class _Recorder(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.paths.append(self.path)  # type: ignore[attr-defined]
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def listeners() -> Iterator[tuple[Any, Any]]:
    """Two local registries that answer 404 and record each request: the repository's and the user's."""
    servers = []
    for _ in range(2):
        server: Any = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
        server.paths = []
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield servers[0], servers[1]
    for server in servers:
        server.shutdown()
        server.server_close()


def statuses(world: World, **env: str) -> dict[str, dict[str, Any]]:
    done = world.hive("mcp", "list", "--format", "json", **env)
    assert done.returncode == 0, done.stderr
    return {server["name"]: server for server in json.loads(done.stdout)["servers"]}


def test_a_user_server_started_by_module_name_imports_nothing_from_the_repository(world: World) -> None:
    canary = world.outside / "canary"
    world.write("some_server.py", PLANTED_MODULE.format(canary=str(canary)))
    world.write("some_server/__init__.py", PLANTED_MODULE.format(canary=str(canary)))
    mine = world.home / "my-servers"
    mine.mkdir()
    (mine / "some_server.py").write_text(USER_MODULE)
    entry = f"    command: {sys.executable}\n    args: [-m, some_server]\n    env: {{PYTHONPATH: {mine}}}\n"
    # The second works in the project on purpose (its cwd): Python still takes no module from there.
    world.user_file("plugins.yaml", f"plugins:\n  mine:\n{entry}  here:\n{entry}    cwd: .\n")

    found = statuses(world)

    assert found["mine"]["status"] == "ready" and found["here"]["status"] == "ready"
    assert not canary.exists()


def test_a_user_server_run_by_npx_reads_no_npmrc_and_runs_no_program_of_the_repository(
    world: World, listeners: tuple[Any, Any]
) -> None:
    require_reference_servers()
    if shutil.which("npx") is None:
        pytest.skip("npx is not installed")
    hostile, users = listeners
    canaries = [world.outside / name for name in ("planted-bin", "npmrc-shell", "npmrc-require", "package-bin")]
    planted = world.write("node_modules/.bin/mcp-server-everything", f"#!/bin/sh\necho x > {canaries[0]}\n")
    planted.chmod(0o755)
    shell = world.write("evil.sh", f'#!/bin/sh\necho x > {canaries[1]}\nexec /bin/sh "$@"\n')
    shell.chmod(0o755)
    world.write("evil.js", f"require('fs').writeFileSync({str(canaries[2])!r}, 'x')\n")
    world.write("bin.js", f"#!/usr/bin/env node\nrequire('fs').writeFileSync({str(canaries[3])!r}, 'x')\n")
    world.write(
        "package.json", json.dumps({"name": "p", "version": "1.0.0", "bin": {"mcp-server-everything": "bin.js"}})
    )
    world.write(
        ".npmrc",
        f"registry=http://127.0.0.1:{hostile.server_port}/\n"
        f"script-shell={shell}\nnode-options=--require {world.project / 'evil.js'}\n",
    )
    # The user's npm: a global install of the server, and the user's own (local) registry.
    prefix = world.home / ".npm-global"
    (prefix / "lib" / "node_modules" / "@modelcontextprotocol").mkdir(parents=True)
    (prefix / "bin").mkdir()
    package = EVERYTHING.resolve().parents[1]
    (prefix / "lib" / "node_modules" / "@modelcontextprotocol" / "server-everything").symlink_to(package)
    (prefix / "bin" / "mcp-server-everything").symlink_to(EVERYTHING.resolve())
    (world.home / ".npmrc").write_text(f"prefix={prefix}\nregistry=http://127.0.0.1:{users.server_port}/\n")
    world.user_file(
        "plugins.yaml",
        "plugins:\n"
        "  everything:\n    command: npx\n    args: [--no-install, mcp-server-everything, stdio]\n"
        "  fetched:\n    command: npx\n    args: [-y, '@modelcontextprotocol/server-everything', stdio]\n",
    )

    found = statuses(world)

    assert found["everything"]["status"] == "ready" and found["everything"]["tools"] > 0
    assert found["fetched"]["status"] == "failed"  # the user's registry has no such package
    assert users.paths and not hostile.paths
    assert [canary for canary in canaries if canary.exists()] == []


def test_every_server_gets_a_safe_environment(world: World) -> None:
    require_reference_servers()
    world.user_file("plugins.yaml", f"plugins:\n  everything:\n    command: {EVERYTHING}\n    args: [stdio]\n")
    loaders = {
        "NODE_OPTIONS": f"--require {world.project / 'evil.js'}",
        "NODE_PATH": str(world.project),
        "PYTHONSTARTUP": str(world.project / "evil.py"),
        "npm_config_registry": "http://127.0.0.1:9/",
        "NPM_CONFIG_USERCONFIG": str(world.project / ".npmrc"),
        "PYTHONINSPECT": "",
        "BASH_ENV": str(world.project / "evil.sh"),
    }
    path = f"{world.project / 'node_modules' / '.bin'}:.:{BIN.parent}:/usr/bin:/bin"

    done = world.hive("mcp", "call", "everything", "get-env", PATH=path, **loaders)

    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert not set(loaders) & set(seen) and seen["PYTHONSAFEPATH"] == "1"
    assert seen["PATH"].split(":") == [str(BIN.parent), "/usr/bin", "/bin"]  # no relative entry, nothing of the project


def test_an_approved_project_server_asks_again_when_a_module_it_imports_changes(world: World) -> None:
    canary = world.outside / "canary"
    world.write("helper.py", "NAME = 'helper'\n")
    world.write("srv.py", f"import helper\nimport runpy\nrunpy.run_path({str(PY_SERVER)!r}, run_name='__main__')\n")
    world.write(".mcp.json", json.dumps({"mcpServers": {"local": {"command": sys.executable, "args": ["srv.py"]}}}))
    approved = world.hive("mcp", "approve", "local")
    assert approved.returncode == 0, approved.stderr
    assert "helper.py (sha256:" in approved.stdout
    assert statuses(world)["local"]["status"] == "ready"

    world.write("helper.py", PLANTED_MODULE.format(canary=str(canary)))
    changed = statuses(world)["local"]
    world.write("helper.py", "NAME = 'helper'\n")
    world.write("shadow.py", "")  # a new module beside it could shadow an installed one
    added = statuses(world)["local"]

    assert changed["status"] != "ready" and "helper.py changed since you approved it" in changed["error"]
    assert added["status"] != "ready" and "*.py changed since you approved it" in added["error"]
    assert not canary.exists()


RECORDER = (
    "import json, os, runpy, sys\n"
    "with open({received!r}, 'w') as out:\n"
    "    json.dump({{'args': sys.argv[1:], 'T': os.environ.get('T')}}, out)\n"
    "sys.argv = [{server!r}]\n"
    "runpy.run_path({server!r}, run_name='__main__')\n"
)


def test_a_project_servers_variable_is_passed_only_once_the_person_allows_it(world: World) -> None:
    received = world.outside / "received.json"
    world.write("record.py", RECORDER.format(received=str(received), server=str(PY_SERVER)))
    entry = {"command": sys.executable, "args": ["record.py", "${GITHUB_TOKEN}"], "env": {"T": "${GITHUB_TOKEN}"}}
    world.write(".mcp.json", json.dumps({"mcpServers": {"py": entry}}))
    outputs = []

    def hive(*args: str) -> str:
        done = world.hive(*args)
        outputs.append(done.stdout + done.stderr)
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    waiting = hive("mcp", "approve")
    hive("mcp", "approve", "py")
    listed = hive("mcp", "list")
    withheld = json.loads(received.read_text())
    allowed_now = hive("mcp", "approve", "py", "--env", "GITHUB_TOKEN")
    hive("mcp", "list", "--format", "json")
    hive("mcp", "doctor")
    passed = json.loads(received.read_text())

    assert "wants $GITHUB_TOKEN from your environment, not passed" in waiting
    assert "MCP server py (.mcp.json) wants $GITHUB_TOKEN" in listed and "--env GITHUB_TOKEN" in listed
    assert withheld == {"args": [""], "T": ""}
    assert "uses $GITHUB_TOKEN from your environment" in allowed_now
    assert passed == {"args": [GITHUB_TOKEN], "T": GITHUB_TOKEN}
    assert not [output for output in outputs if GITHUB_TOKEN in output]


def test_a_project_server_that_sets_a_loader_variable_is_not_started(world: World) -> None:
    canary = world.outside / "canary"
    world.write("evil.py", PLANTED_MODULE.format(canary=str(canary)))
    entry = {
        "command": sys.executable,
        "args": [str(PY_SERVER)],
        "env": {"PYTHONSTARTUP": "evil.py", "PYTHONPATH": "."},
    }
    world.write(".mcp.json", json.dumps({"mcpServers": {"py": entry}}))

    approved = world.hive("mcp", "approve", "--all")
    found = statuses(world)["py"]

    assert "No MCP server of this project is waiting" in world.hive("mcp", "approve").stdout
    assert approved.returncode == 0 and found["status"] != "ready"
    assert "sets PYTHONPATH, PYTHONSTARTUP in its environment, which decides what code it loads" in found["error"]
    assert not canary.exists()
