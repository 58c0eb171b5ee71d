"""Known secret values never land in what hive stores, tried as an attacker (or a careless moment) would.

A real ``hive run`` with a scripted model: the person pastes the value of ``OPENAI_API_KEY`` into the
prompt, the model repeats it in its text and in a tool call's arguments and asks to ``remember`` it,
and a user MCP server that gets ``TOKEN: ${SOME_TOKEN}`` prints its token on stderr. The session
file, the MCP server's log and the memory database hold the markers, never the values; every file
is 0600 and every folder 0700 under umask 022.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.trust import trust

# A user's MCP server that prints its token on stderr as it starts and each time its tool runs.
LEAKY_SERVER = """
import os, sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("leaky", version="1.0")
sys.stderr.write("leaky starting, token " + os.environ["TOKEN"] + "\\n")
sys.stderr.flush()


@server.tool()
def status() -> str:
    \"\"\"Say how the server is.\"\"\"
    sys.stderr.write("status asked, authenticating with " + os.environ["TOKEN"] + "\\n")
    sys.stderr.flush()
    return "all fine"


server.run()
"""


@pytest.fixture
def open_umask() -> Iterator[None]:
    previous = os.umask(0o022)  # the usual umask: without care, files are 0644 and folders 0755
    yield
    os.umask(previous)


def user_server(hive_home: Path, script: Path) -> None:
    """The person's own MCP server, handed the token through a variable, and rules that let its tool run."""
    config = hive_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "plugins.yaml").write_text(
        f"plugins:\n  leaky:\n    command: {sys.executable}\n    args: ['{script}']\n"
        "    env: {TOKEN: '${SOME_TOKEN}'}\n"
    )
    (config / "permissions.yaml").write_text(
        "permissions:\n  include_defaults: true\n  mcp_tools:\n    - {pattern: 'mcp__leaky__*', action: allow}\n"
    )


def test_secret_values_never_land_in_the_session_the_mcp_log_or_memory(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path, open_umask: None
) -> None:
    api_key, token = f"sk-proj-{secrets.token_hex(16)}", f"tok-{secrets.token_hex(12)}"
    project = tmp_path / "project"
    (project / ".ironhive").mkdir(parents=True)
    (project / ".ironhive" / "settings.yaml").write_text("memory:\n  enabled: true\n")
    trust(project)
    script = tmp_path / "leaky_server.py"
    script.write_text(LEAKY_SERVER)
    user_server(isolated_hive, script)
    llm_server.script(
        tool_calls(
            call("mcp__leaky__status", {}, id="status"),
            call("remember", {"text": f"the OpenAI key is {api_key}; the server token is {token}"}, id="mem"),
            call("write_file", {"path": "notes.txt", "content": f"key={api_key}\n"}, id="write"),
        ),
        text(f"I noted the key {api_key} and the token {token}."),
    )

    done = run_hive(
        "run", f"my OpenAI key is {api_key}, keep it in mind", "-o", "stream-json", "--model", "openai/test-model",
        "--api-base", llm_server.base_url, "--api-key", "sk-test", "--yes", "-C", str(project),
        OPENAI_API_KEY=api_key, SOME_TOKEN=token,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    finished = {line["call_id"]: line for line in json_lines(done.stdout) if line["type"] == "tool_call_finished"}
    assert set(finished) == {"status", "mem", "write"}
    data = isolated_hive / "data"
    (session,) = (data / "sessions").glob("*.jsonl")
    stored = session.read_text()
    assert api_key not in stored and token not in stored
    assert stored.count("[redacted: $OPENAI_API_KEY]") >= 4  # the prompt, the title, the model's text, the arguments
    assert "[redacted: $SOME_TOKEN]" in stored
    log = (data / "mcp-logs" / "leaky.log").read_text()
    assert "leaky starting, token [redacted: $SOME_TOKEN]" in log
    assert "status asked, authenticating with [redacted: $SOME_TOKEN]" in log and token not in log
    with sqlite3.connect(data / "memory.sqlite3") as db:
        (memory,) = db.execute("SELECT text FROM memories").fetchall()
    assert memory == ("the OpenAI key is [redacted: $OPENAI_API_KEY]; the server token is [redacted: $SOME_TOKEN]",)
    kept = [path for path in data.rglob("*") if path.is_file() and "objects" not in path.parts]
    on_disk = b"".join(path.read_bytes() for path in kept)  # checkpoint blobs are the person's files: left out
    assert api_key.encode() not in on_disk and token.encode() not in on_disk
    assert (project / "notes.txt").read_text() == f"key={api_key}\n"  # the person's own files are theirs to keep
    for path in [data, *data.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path
