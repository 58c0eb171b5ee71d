"""The mcp SDK costs about a second to import: only a starting server may import it."""

from __future__ import annotations

import subprocess
import sys

from tests.support.cli import hive_env


def imported_by(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args], env=hive_env(), capture_output=True, text=True, check=True
    )
    return {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in done.stderr.splitlines() if "|" in line}


def test_hive_version_does_not_import_the_sdk() -> None:
    assert not imported_by("-m", "hive_cli", "--version") & {"mcp", "mcp_types", "httpx2"}


def test_building_a_session_with_mcp_support_does_not_import_the_sdk() -> None:
    modules = imported_by("-c", "import engine.session, engine.mcp.manager, engine.mcp.config")
    assert "engine" in modules
    assert not modules & {"mcp", "mcp_types", "httpx2"}
