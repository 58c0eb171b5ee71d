"""`hive mcp list | tools | call | doctor` against real servers, through the real program."""

from __future__ import annotations

import json
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.cli import run_hive
from tests.support.mcp_servers import (
    EVERYTHING,
    PY_SERVER,
    approve_project_servers,
    free_port,
    require_reference_servers,
)
from tests.support.processes import gone_within

pytestmark = pytest.mark.usefixtures("reference_servers")


@pytest.fixture
def reference_servers() -> None:
    require_reference_servers()


def project(tmp_path: Path, plugins: str) -> Path:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "plugins.yaml").write_text("plugins:\n" + plugins)
    approve_project_servers(tmp_path)
    return tmp_path


def everything(marker: str = "x") -> str:
    return f"  everything:\n    command: {EVERYTHING}\n    args: [stdio, {marker}]\n"


def test_list_shows_each_server_status_tools_source_and_error(tmp_path: Path) -> None:
    marker = f"hive-list-{secrets.token_hex(4)}"
    root = project(
        tmp_path,
        everything(marker) + "  nope:\n    command: no-such-program-here\n"
        "  idle:\n    command: whatever\n    enabled: false\n",
    )
    shown = run_hive("mcp", "list", "-C", str(root), timeout=30)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    plugins = root / ".ironhive" / "plugins.yaml"
    assert lines[0].split()[:3] == ["everything", "stdio", "ready"] and lines[0].endswith(str(plugins))
    assert lines[1].split()[:3] == ["nope", "stdio", "failed"]
    assert "error: cannot run 'no-such-program-here': no such program" in lines[2]
    assert lines[3].split()[:3] == ["idle", "stdio", "disabled"]
    as_json = run_hive("mcp", "list", "--format", "json", "-C", str(root), timeout=30)
    servers = {s["name"]: s for s in json.loads(as_json.stdout)["servers"]}
    assert servers["everything"]["status"] == "ready" and "echo" in servers["everything"]["tool_names"]
    assert servers["everything"]["tools"] >= 13 and servers["everything"]["protocol_version"]
    assert servers["nope"]["status"] == "failed" and "no such program" in servers["nope"]["error"]
    assert servers["idle"]["status"] == "disabled" and servers["idle"]["source"] == str(plugins)
    assert gone_within(marker, 5)


def test_tools_and_call_against_the_everything_server(tmp_path: Path) -> None:
    root = project(tmp_path, everything())
    tools = run_hive("mcp", "tools", "everything", "--format", "json", cwd=root, timeout=30)
    assert tools.returncode == 0, tools.stderr
    echo = next(t for t in json.loads(tools.stdout) if t["name"] == "echo")
    assert echo["exposed_as"] == "mcp__everything__echo" and "message" in echo["input_schema"]["properties"]
    called = run_hive("mcp", "call", "everything", "echo", "--args", '{"message": "hi there"}', cwd=root, timeout=30)
    assert (called.returncode, called.stdout.strip()) == (0, "Echo: hi there"), called.stderr
    progress = run_hive(
        "mcp", "call", "everything", "trigger-long-running-operation",
        "--args", '{"duration": 0.4, "steps": 2}', cwd=root, timeout=30,
    )  # fmt: skip
    assert progress.returncode == 0 and "progress: 2/2" in progress.stderr, progress.stderr


def test_call_errors_bad_json_exits_2_and_a_failing_tool_exits_1_with_its_text(tmp_path: Path) -> None:
    root = project(tmp_path, f"  py:\n    command: {sys.executable}\n    args: [{PY_SERVER}]\n")
    bad = run_hive("mcp", "call", "py", "echo", "--args", "{nope", cwd=root)
    assert bad.returncode == 2 and bad.stderr.startswith("hive: --args is not valid JSON"), bad.stderr
    unknown = run_hive("mcp", "call", "ghost", "echo", cwd=root)
    assert unknown.returncode == 2 and "no MCP server named 'ghost'; configured: py" in unknown.stderr
    failed = run_hive("mcp", "call", "py", "fail", cwd=root, timeout=30)
    assert failed.returncode == 1, failed.stderr
    assert failed.stderr == "hive: fail failed: Error executing tool fail\n"
    no_tool = run_hive("mcp", "call", "py", "nosuch", cwd=root, timeout=30)
    assert no_tool.returncode == 2 and "has no tool 'nosuch'; it offers: " in no_tool.stderr


def test_doctor_reports_handshake_timings_stderr_and_likely_causes(tmp_path: Path) -> None:
    exits = "import sys; sys.stderr.write('fatal: API_KEY is not set\\n'); sys.exit(1)"
    root = project(
        tmp_path,
        everything()
        + "  nope:\n    command: no-such-program-here\n"
        + f"  dies:\n    command: {sys.executable}\n    args: ['-c', {json.dumps(exits)}]\n"
        + f"  hangs:\n    command: {sys.executable}\n    args: [{PY_SERVER}, --hang-at-start]\n    startup_timeout: 1\n"
        + f"  web:\n    transport: http\n    url: http://127.0.0.1:{free_port()}/mcp\n",
    )
    report = run_hive("mcp", "doctor", cwd=root, timeout=40)
    assert report.returncode == 1, report.stderr
    out = report.stdout
    assert "everything (stdio," in out and "handshake: ok in" in out and "protocol 2025-11-25" in out
    assert "health: ok" in out
    assert "likely cause: command not found: 'no-such-program-here'" in out
    assert "likely cause: the server exited at start" in out and "    fatal: API_KEY is not set" in out
    assert "likely cause: auth: the server asks for credentials" in out
    assert "did not connect within 1 s" in out and "likely cause: timeout" in out
    assert "likely cause: nothing answers at that address" in out
    assert out.rstrip().endswith("1 of 5 server(s) ok")
    as_json = json.loads(run_hive("mcp", "doctor", "--format", "json", cwd=root, timeout=40).stdout)
    checks = {s["name"]: s for s in as_json["servers"]}
    assert checks["everything"]["handshake"] == "ok" and checks["everything"]["seconds"] > 0
    assert checks["dies"]["stderr_tail"] == ["fatal: API_KEY is not set"]
    assert checks["web"]["handshake"] == "failed" and checks["web"]["likely_causes"]


class _Unauthorized(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", "Bearer")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        return


def test_doctor_names_auth_when_the_server_answers_401(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Unauthorized)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        root = project(
            tmp_path,
            f"  web:\n    transport: http\n    url: http://127.0.0.1:{port}/mcp\n"
            f"  old:\n    transport: sse\n    url: http://127.0.0.1:{port}/sse\n",
        )
        report = run_hive("mcp", "doctor", cwd=root, timeout=30)
    finally:
        server.shutdown()
        server.server_close()
    assert report.returncode == 1, report.stderr
    assert report.stdout.count("likely cause: auth 401: the server wants credentials") == 2, report.stdout
    assert "log in with: hive mcp login web" in report.stdout and "hive mcp login old" in report.stdout


class _Refusing(BaseHTTPRequestHandler):
    """Answers every request with the status its path starts with (/401/mcp -> 401; else, as the metadata hive looks for, 404)."""

    def do_POST(self) -> None:
        first = self.path.split("/")[1]
        self.send_response(int(first) if first.isdigit() else 404)
        self.send_header("WWW-Authenticate", "Bearer")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_DELETE = do_POST

    def log_message(self, *args: object) -> None:
        return


def test_list_and_tools_name_a_401_403_or_404_as_doctor_does(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    entries = "".join(
        f"  {transport}{status}:\n    transport: {transport}\n    url: {base}/{status}/{transport}\n"
        for status in (401, 403, 404)
        for transport in ("http", "sse")
    )
    try:
        root = project(tmp_path, entries)
        listed = json.loads(run_hive("mcp", "list", "--format", "json", cwd=root, timeout=30).stdout)
        tools = run_hive("mcp", "tools", "http401", cwd=root, timeout=30)
    finally:
        server.shutdown()
        server.server_close()
    errors = {s["name"]: s["error"] for s in listed["servers"]}
    for transport in ("http", "sse"):
        assert errors[f"{transport}401"] == (
            f"the server answered 401 Unauthorized: it needs login: run `hive mcp login {transport}401`"
        )
        assert errors[f"{transport}403"].startswith("the server answered 403 Forbidden")
        assert errors[f"{transport}404"].startswith(f"the server answered 404 Not Found at {base}/404/{transport}")
    assert not any("code -32" in error or "Client error" in error for error in errors.values()), errors
    assert tools.returncode == 1 and "the server answered 401 Unauthorized" in tools.stderr, tools.stderr
