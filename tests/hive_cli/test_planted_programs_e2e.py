"""Programs planted on the project's PATH never run: a real ``hive run`` with a project ``.venv/bin`` first on PATH.

An earlier command left ``bwrap``, ``rg``, ``npx``, ``git``, ``bash`` and ``myserver`` in the project's
``.venv/bin``; each says so on its output and leaves a canary outside the project if it runs. The
user's MCP server is launched by its bare name ``myserver``, which also lies, as the real server, in
a folder no command can write. The run searches, runs a command and calls the server: each works,
none of the planted programs runs, and hive says once, at the start, what it passed over.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.programs import INSIDE_WRITABLE
from tests.engine.sandbox.helpers import make_repo, require_bwrap
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.mcp_servers import PY_SERVER
from tests.support.safe_folder import make_folder, program, safe_folder

PLANTED = ("bwrap", "rg", "npx", "git", "bash", "myserver")
LOOKED_UP = ("bwrap", "rg", "bash", "myserver")
"""The ones hive itself looks for in this run (git and npx it never runs; they are there to show it)."""


@pytest.fixture
def safe() -> Iterator[Path]:
    with safe_folder() as folder:
        yield folder


def test_nothing_planted_on_the_projects_path_runs_and_hive_says_what_it_skipped(
    llm_server: LLMServer, safe: Path, isolated_hive: Path
) -> None:
    require_bwrap()
    project = make_repo(safe / "project")
    (project / "notes.txt").write_text("the needle is here\n")
    canary = make_folder(safe / "outside") / "canary"
    planted_bin = project / ".venv" / "bin"
    for name in PLANTED:
        program(planted_bin, name, f"echo planted {name} ran\necho {name} >> {canary}")
    server = program(safe / "tools", "myserver", f'exec {sys.executable} {PY_SERVER} "$@"')
    make_folder(isolated_hive / "config")
    (isolated_hive / "config" / "plugins.yaml").write_text("plugins:\n  mine:\n    command: myserver\n")
    llm_server.script(
        tool_calls(call("grep_files", {"pattern": "needle"}, id="grep")),
        tool_calls(call("execute_command", {"command": "echo from-the-shell"}, id="shell")),
        tool_calls(call("mcp__mine__echo", {"text": "from-the-server"}, id="mcp")),
        text("done"),
    )

    done = run_hive(
        "run", "use the tools", "-o", "json", "--yes", "--model", "openai/test-model",
        "--api-base", llm_server.base_url, "-C", str(project),
        PATH=os.pathsep.join([str(planted_bin), str(server.parent), os.environ["PATH"]]),
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    outputs = {c["call_id"]: c["output"] for c in result["tool_calls"]}
    assert all(c["success"] for c in result["tool_calls"]), result["tool_calls"]
    assert "notes.txt" in outputs["grep"]
    assert "from-the-shell" in outputs["shell"]
    assert "from-the-server" in outputs["mcp"]
    assert result["sandbox"].startswith("bubblewrap sandbox")
    assert not canary.exists(), canary.read_text()
    assert "planted" not in json.dumps(result)
    notices = "\n".join(result["notices"])
    for name in LOOKED_UP:
        assert notices.count(f"skipped {planted_bin / name} ({INSIDE_WRITABLE})") == 1, notices
    assert f"using {server}" in notices
