"""What hive stores is the person's alone: folders 0700, files 0600, whatever the umask."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.mcp_servers import PY_SERVER
from tests.support.trust import trust


@pytest.fixture
def open_umask() -> Iterator[None]:
    previous = os.umask(0o022)  # the usual umask: without care, files are 0644 and folders 0755
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_sessions_memory_and_records_are_private(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path, open_umask: None
) -> None:
    project = tmp_path / "project"
    (project / ".ironhive").mkdir(parents=True)
    (project / ".ironhive" / "settings.yaml").write_text("memory:\n  enabled: true\n")
    trust(project)
    password = "hunter2-typed-into-the-prompt"
    llm_server.script(tool_calls(call("remember", {"text": "the build uses make"})), text("noted"))

    done = run_hive(
        "run", f"my password is {password}", "--model", "openai/test-model", "--api-base", llm_server.base_url,
        "--api-key", "sk-test", "-C", str(project),
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    config, data = isolated_hive / "config", isolated_hive / "data"
    (session,) = (data / "sessions").glob("*.jsonl")
    assert password in session.read_text()  # what was typed is kept, for the person only
    for folder in (config, data, data / "sessions"):
        assert mode(folder) == 0o700, folder
    for file in (session, data / "memory.sqlite3", config / "trust.json"):
        assert mode(file) == 0o600, file


def walk(root: Path) -> Iterator[Path]:
    """``root`` and everything under it (links not followed)."""
    yield root
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            yield Path(folder, name)


def test_nothing_hive_stores_after_a_run_with_tools_mcp_and_checkpoints_is_readable_by_others(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path, open_umask: None
) -> None:
    project = tmp_path / "project"
    (project / ".ironhive").mkdir(parents=True)
    (project / ".ironhive" / "settings.yaml").write_text("memory:\n  enabled: true\n")
    credentials = project / "credentials.ini"
    credentials.write_text("[default]\naws_secret_access_key = kept-for-the-person-only\n")
    credentials.chmod(0o600)
    trust(project)
    config = isolated_hive / "config"
    written_by_the_person = {config / "plugins.yaml", config / "permissions.yaml"}
    (config / "plugins.yaml").write_text(f"plugins:\n  py:\n    command: {sys.executable}\n    args: ['{PY_SERVER}']\n")
    (config / "permissions.yaml").write_text(
        "permissions:\n  include_defaults: true\n  mcp_tools:\n    - {pattern: 'mcp__py__*', action: allow}\n"
    )
    llm_server.script(
        tool_calls(
            call("mcp__py__echo", {"text": "through hive"}, id="echo"),
            call("remember", {"text": "credentials live in credentials.ini"}, id="mem"),
            call("edit_file", {"path": "credentials.ini", "old_string": "kept", "new_string": "changed"}, id="edit"),
            call("execute_command", {"command": "seq 1 40000 && echo extra > made.txt"}, id="run"),
        ),
        text("done"),
    )

    done = run_hive(
        "run", "look after the credentials", "-o", "stream-json", "--model", "openai/test-model",
        "--api-base", llm_server.base_url, "--api-key", "sk-test", "--yes", "-C", str(project),
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    finished = {line["call_id"]: line for line in json_lines(done.stdout) if line["type"] == "tool_call_finished"}
    assert {c: finished[c]["success"] for c in finished} == dict.fromkeys(("echo", "mem", "edit", "run"), True), [
        f["output"][-600:] for f in finished.values()
    ]
    data = isolated_hive / "data"
    kinds = {"sessions", "mcp-logs", "checkpoints", "memory.sqlite3"}
    assert kinds <= {path.name for path in data.iterdir()}
    assert list((project / ".hive").rglob("command-*")), "the long output was kept in the scratch folder"
    found = [
        path
        for root in (config, data, isolated_hive / "cache", project / ".hive")
        if root.exists()
        for path in walk(root)
        if path not in written_by_the_person
    ]
    open_to_others = [f"{path} {mode(path):o}" for path in found if mode(path) & 0o077]
    assert open_to_others == []
    assert {mode(path) for path in found if path.is_dir()} == {0o700}
    assert {mode(path) for path in found if path.is_file()} == {0o600}
    blobs = [path for path in (data / "checkpoints").rglob("*") if path.is_file() and "objects" in path.parts]
    assert blobs and "changed-for-the-person-only" in credentials.read_text() and (project / "made.txt").exists()
    undone = run_hive("undo", "--yes", "-C", str(project))
    assert undone.returncode == 0, undone.stderr
    assert credentials.read_text() == "[default]\naws_secret_access_key = kept-for-the-person-only\n"
    assert mode(credentials) == 0o600 and not (project / "made.txt").exists()
