"""tests/conformance/hive_client.py, the conformance suite's client command: it drives the real hive at a URL.

The suite itself needs Node 22 and runs in `make test-conformance`; here the driver meets a small
Streamable HTTP server of our own, the way the suite's scenario servers meet it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.cli import hive_env
from tests.support.mcp_servers import _wait_listening, free_port

DRIVER = Path(__file__).parents[1] / "conformance" / "hive_client.py"

SCENARIO_SERVER = """
import json, sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("scenario", version="1.0")


@server.tool()
def add_numbers(a: float, b: float, note: str = "unused") -> str:
    '''Record the arguments hive sent and add them.'''
    with open(sys.argv[2], "a") as record:
        record.write(json.dumps({"a": a, "b": b}) + "\\n")
    return str(a + b)


server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
"""


@contextmanager
def scenario_server(tmp_path: Path, record: Path) -> Iterator[str]:
    script = tmp_path / "scenario_server.py"
    script.write_text(textwrap.dedent(SCENARIO_SERVER))
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(script), str(port), str(record)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_listening(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def run_driver(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(DRIVER), url],
        env=hive_env(MCP_CONFORMANCE_SCENARIO="tools_call"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def steps(stderr: str) -> list[str]:
    return [line.split(" http")[0] for line in stderr.splitlines() if line.startswith("$ hive ")]


def test_the_driver_adds_the_server_lists_its_tools_and_calls_each_with_its_required_arguments(tmp_path: Path) -> None:
    record = tmp_path / "calls.jsonl"
    with scenario_server(tmp_path, record) as url:
        done = run_driver(url)
    assert done.returncode == 0, done.stderr
    assert steps(done.stderr) == [
        "$ hive mcp add conformance",
        "$ hive mcp tools conformance --format json",
        '$ hive mcp call conformance add_numbers --args {"a": 1, "b": 1}',
    ]
    assert [json.loads(line) for line in record.read_text().splitlines()] == [{"a": 1, "b": 1}]
    assert "scenario: tools_call" in done.stderr


def test_the_driver_exits_with_hives_status_when_hive_fails(tmp_path: Path) -> None:
    done = run_driver(f"http://127.0.0.1:{free_port()}/mcp")
    assert done.returncode == 1, done.stderr
    assert steps(done.stderr) == ["$ hive mcp add conformance", "$ hive mcp tools conformance --format json"]
    assert "(exit 1)" in done.stderr
