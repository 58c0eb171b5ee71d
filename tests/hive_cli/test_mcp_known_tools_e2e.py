"""`hive run` offers the tools a server listed in an earlier run at once, and connects it in the background.

The server (tests/support/mcp_server.py) answers nothing until the test creates its hold file, so
what the first request offers while that file is missing cannot have come from the server: it came
from the cache. Its extra tools come from a file outside the project, so the same launch lists other tools.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.cli import hive_env, json_lines, run_hive
from tests.support.llm_server import HeldReply, LLMServer, call, text, tool_calls
from tests.support.mcp_servers import PY_SERVER, approve_project_servers
from tests.support.processes import gone_within
from tests.support.trust import trust

ALLOW_PY = "permissions:\n  include_defaults: true\n  mcp_tools:\n    - {pattern: 'mcp__py__*', action: allow}\n"


class Project:
    """A project with one approved Python server, held until ``hold`` exists, listing ``tools``' lines too.

    ``trusted``: the person trusts the project (its rules allow the server's tools; its servers need no approval).
    """

    def __init__(self, tmp_path: Path, *, trusted: bool = True) -> None:
        self.root = tmp_path / "project"
        self.hold = tmp_path / "connect-now"
        self.tools = tmp_path / "extra-tools.txt"
        self.marker = f"hive-known-{secrets.token_hex(6)}"
        (self.root / ".ironhive").mkdir(parents=True)
        args = f"['{PY_SERVER}', --hold-until, '{self.hold}', --tools-file, '{self.tools}', --marker, {self.marker}]"
        (self.root / ".ironhive" / "plugins.yaml").write_text(
            f"plugins:\n  py:\n    command: {sys.executable}\n    args: {args}\n    startup_timeout: 120\n"
        )
        (self.root / ".ironhive" / "permissions.yaml").write_text(ALLOW_PY)
        approve_project_servers(self.root)
        if trusted:
            trust(self.root)


def command(server: LLMServer, root: Path) -> list[str]:
    return [
        sys.executable, "-m", "hive_cli", "run", "use the tools", "-o", "stream-json",
        "--model", "openai/test-model", "--api-base", server.base_url, "-C", str(root),
    ]  # fmt: skip


def hive_run(server: LLMServer, root: Path) -> subprocess.CompletedProcess[str]:
    return run_hive(*command(server, root)[3:])


@contextmanager
def hive_in_background(server: LLMServer, root: Path) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        command(server, root), env=hive_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        yield process
    finally:
        process.kill()
        process.communicate()


def offered(server: LLMServer, index: int) -> set[str]:
    return {tool["function"]["name"] for tool in server.chat_requests[index].json.get("tools", [])}


def cache_files(hive_home: Path) -> list[Path]:
    return sorted((hive_home / "cache" / "mcp-tools").glob("*.json"))


def cached_names(cache: Path) -> set[str]:
    return {tool["name"] for tool in json.loads(cache.read_text())["tools"]}


def first_run(server: LLMServer, project: Project, hive_home: Path) -> Path:
    """A run that has never seen the server: it waits for it, and leaves its listing in the cache."""
    project.tools.write_text("stale\n")
    project.hold.touch()
    assert cache_files(hive_home) == []
    server.script(text("first run"))
    done = hive_run(server, project.root)
    assert done.returncode == 0, done.stderr
    (cache,) = cache_files(hive_home)
    return cache


def wait_for_line(process: subprocess.Popen[str], kind: str) -> dict[str, object]:
    assert process.stdout is not None
    for line in process.stdout:
        event = json.loads(line)
        if event["type"] == kind:
            return event
    raise AssertionError(f"hive ended without a {kind} line")


def test_a_server_never_seen_is_waited_for_and_its_listing_is_cached(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    cache = first_run(llm_server, Project(tmp_path), isolated_hive)

    assert {"mcp__py__echo", "mcp__py__stale"} <= offered(llm_server, 0)  # the server's own list, from the first call
    assert {"echo", "peek", "stale"} <= cached_names(cache)
    assert cache.stat().st_mode & 0o777 == 0o600
    assert "--hold-until" not in cache.read_text()  # what the model is offered, not how the server runs


def test_a_later_run_offers_the_cached_tools_first_and_a_call_to_one_waits_for_the_server(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    project = Project(tmp_path)
    cache = first_run(llm_server, project, isolated_hive)
    project.hold.unlink()  # the server answers nothing until the test says so
    project.tools.write_text("fresh\n")  # and lists other tools this time
    held = HeldReply(tool_calls(call("mcp__py__echo", {"text": "through the cache"}, id="echo")))
    llm_server.script(held, text("done"))

    with hive_in_background(llm_server, project.root) as process:
        held.wait_arrived()
        first = offered(llm_server, 1)
        assert not project.hold.exists()  # so the server has not answered yet: these tools came from the cache
        assert {"mcp__py__echo", "mcp__py__stale"} <= first and "mcp__py__fresh" not in first
        held.release()
        started = wait_for_line(process, "tool_call_started")
        assert started["call_id"] == "echo"
        project.hold.touch()  # the call is under way while the server is still held: it has to wait for it
        _, stderr = process.communicate(timeout=60)

    assert process.returncode == 0, stderr
    assert llm_server.chat_requests[2].messages[-1]["content"] == "through the cache"
    later = offered(llm_server, 2)
    assert "mcp__py__fresh" in later and "mcp__py__stale" not in later  # the real list replaced the cached one
    assert {"echo", "fresh"} <= cached_names(cache) and "stale" not in cached_names(cache)


def test_a_run_that_never_uses_a_cached_server_does_not_wait_for_it_and_leaves_it_stopped(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    project = Project(tmp_path)
    first_run(llm_server, project, isolated_hive)
    project.hold.unlink()  # the server will not answer during this run (its startup_timeout is 120 s)
    llm_server.script(text("nothing to do"))

    done = hive_run(llm_server, project.root)

    assert done.returncode == 0, done.stderr
    assert "mcp__py__echo" in offered(llm_server, 1)
    assert not project.hold.exists()  # the run ended while the server was still held
    assert gone_within(project.marker, 5), "the server still starting was left running"


def test_a_damaged_cache_is_ignored_and_rewritten(llm_server: LLMServer, tmp_path: Path, isolated_hive: Path) -> None:
    project = Project(tmp_path)
    cache = first_run(llm_server, project, isolated_hive)
    cache.write_bytes(b'{"tools": [{"name": "bogus"')
    project.tools.write_text("fresh\n")
    llm_server.script(text("done"))

    done = hive_run(llm_server, project.root)

    assert done.returncode == 0, done.stderr
    first = offered(llm_server, 1)
    assert "mcp__py__fresh" in first and "mcp__py__bogus" not in first  # waited for, as a server never seen
    assert "fresh" in cached_names(cache)


@pytest.mark.parametrize("change", ["revoked", "launch changed"])
def test_a_server_awaiting_approval_never_has_its_cached_tools_offered(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path, change: str
) -> None:
    project = Project(tmp_path, trusted=False)  # so its servers start only once approved
    first_run(llm_server, project, isolated_hive)
    if change == "revoked":
        revoked = run_hive("mcp", "revoke", "py", "-C", str(project.root))
        assert revoked.returncode == 0, revoked.stderr
    else:
        plugins = project.root / ".ironhive" / "plugins.yaml"
        plugins.write_text(plugins.read_text().replace("--tools-file", "--marker, changed, --tools-file"))
    llm_server.script(text("done"))

    done = hive_run(llm_server, project.root)

    assert done.returncode == 0, done.stderr
    assert not [name for name in offered(llm_server, 1) if name.startswith("mcp__")]
    notices = json_lines(done.stdout)[0]["notices"]
    assert any("MCP server py" in notice and "waiting for your approval" in notice for notice in notices), notices
