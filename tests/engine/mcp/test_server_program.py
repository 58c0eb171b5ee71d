"""Which program starts a stdio MCP server: never one a sandboxed command could have planted in the project."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.mcp.config import McpServers
from engine.mcp.manager import McpManager
from engine.mcp.stdio import server_program
from engine.programs import INSIDE_WRITABLE
from hive_cli.mcp_doctor import likely_causes
from tests.engine.sandbox.helpers import make_repo
from tests.support.mcp_servers import PY_SERVER, stdio
from tests.support.safe_folder import program, safe_folder


@pytest.fixture
def safe() -> Iterator[Path]:
    with safe_folder() as folder:
        yield folder


def test_a_bare_name_is_looked_up_on_the_servers_own_path_past_the_project(safe: Path) -> None:
    project = make_repo(safe / "project")
    planted = program(project / "node_modules" / ".bin", "srv")
    real = program(safe / "bin", "srv")
    path = f"{planted.parent}:{real.parent}"

    found = server_program(stdio("s", "srv", cwd=project, env={"PATH": path}), (project,))

    assert found.path == str(real)
    assert [(skip.path, skip.reason) for skip in found.skipped] == [(planted, INSIDE_WRITABLE)]


def test_without_folders_given_the_project_of_the_servers_folder_is_passed_over(safe: Path) -> None:
    project = make_repo(safe / "project")
    planted = program(project / ".venv" / "bin", "srv")

    found = server_program(stdio("s", "srv", cwd=project / ".venv", env={"PATH": str(planted.parent)}))

    assert found.program is None and found.skipped[0].path == planted


def test_a_path_is_used_as_given_from_the_servers_folder_with_a_caution_inside_the_project(safe: Path) -> None:
    project = make_repo(safe / "project")
    script = program(project / "scripts", "serve")
    outside = program(safe / "bin", "serve")

    inside = server_program(stdio("s", "scripts/serve", cwd=project), (project,))
    elsewhere = server_program(stdio("s", str(outside), cwd=project), (project,))

    assert inside.path == str(script)
    assert inside.notice() == f"scripts/serve: runs {script}, which others could have changed ({INSIDE_WRITABLE})"
    assert (elsewhere.path, elsewhere.notice()) == (str(outside), None)


def test_a_server_whose_program_is_only_in_the_project_fails_and_the_doctor_says_why(safe: Path) -> None:
    project = make_repo(safe / "project")
    canary = safe / "canary"
    planted = program(project / ".venv" / "bin", "srv", f"touch {canary}; exec {sys.executable} {PY_SERVER}")
    server = stdio("srv", "srv", cwd=project, env={"PATH": str(planted.parent)})

    async def start() -> str | None:
        manager = McpManager(McpServers(servers=(server,)), safe / "logs", unsafe_dirs=(project,))
        await manager.start()
        try:
            await manager.wait_ready()
            return manager.status()[0].error
        finally:
            await manager.stop()

    error = asyncio.run(start())

    assert error is not None and "no such program" in error
    assert not canary.exists()
    assert f"skipped {planted} ({INSIDE_WRITABLE})" in (safe / "logs" / "srv.log").read_text()
    causes = likely_causes(server, error, ())
    assert causes == (
        f"command not found: 'srv' is only where sandboxed commands could have put it: {planted} ({INSIDE_WRITABLE})",
    )
