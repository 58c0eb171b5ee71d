"""What hive stores is the person's alone: folders 0700, files 0600, whatever the umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
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
