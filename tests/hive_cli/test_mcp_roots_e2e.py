"""`hive mcp call` offers the servers the project root and the user's writable roots, and nothing else."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.paths import user_config_dir
from tests.support.cli import run_hive
from tests.support.mcp_servers import PY_SERVER, approve_project_servers


def test_a_server_asking_roots_list_gets_the_project_and_the_users_writable_root_only(tmp_path: Path) -> None:
    project, mine, planted = tmp_path / "repo", tmp_path / "mine", tmp_path / "planted"
    for folder in (project / ".git", project / "src", mine, planted):
        folder.mkdir(parents=True)
    user_config_dir().mkdir(parents=True, exist_ok=True)
    (user_config_dir() / "settings.yaml").write_text(f"sandbox:\n  writable_roots: [{mine}]\n")
    ironhive = project / ".ironhive"
    ironhive.mkdir()
    (ironhive / "settings.yaml").write_text(f"sandbox:\n  writable_roots: [{planted}]\n")  # the project may not add it
    (ironhive / "plugins.yaml").write_text(f"plugins:\n  py:\n    command: {sys.executable}\n    args: [{PY_SERVER}]\n")
    approve_project_servers(project)
    called = run_hive("mcp", "call", "py", "roots", cwd=project / "src", timeout=30)
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == [
        {"uri": (project.resolve()).as_uri(), "name": "project repo"},
        {"uri": mine.resolve().as_uri(), "name": "writable root mine"},
    ]


def test_a_server_written_with_roots_false_is_offered_none(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    user_config_dir().mkdir(parents=True, exist_ok=True)
    entry = f"plugins:\n  py:\n    command: {sys.executable}\n    args: [{PY_SERVER}]\n    roots: false\n"
    (user_config_dir() / "plugins.yaml").write_text(entry)
    called = run_hive("mcp", "call", "py", "roots", cwd=project, timeout=30)
    assert called.returncode == 1
    assert "roots capability" in called.stdout + called.stderr  # the server asked; hive declared none
