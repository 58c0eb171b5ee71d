"""The language grammars load when a file of their language is mapped, never on hive's start path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.repo_map_fixture import write_project

GRAMMARS = {"tree_sitter_python", "tree_sitter_javascript", "tree_sitter_typescript", "tree_sitter_go"}


def imported(stderr: str) -> set[str]:
    """The top-level packages ``-X importtime`` reported."""
    names = {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}
    return {name.split(".")[0] for name in names}


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["run", "--help"]], ids=" ".join)
def test_hive_starts_without_the_grammars(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hive_cli", *args], env=hive_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "hive_cli" in imported(done.stderr)
    assert not imported(done.stderr) & GRAMMARS


def test_a_run_loads_the_grammars_only_when_it_maps_files_of_their_languages(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project = write_project(tmp_path / "project")
    model = ("-m", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(project))
    llm_server.script(text("Nothing to map."))
    answered = run_hive("run", "say hello", *model, PYTHONPROFILEIMPORTTIME="1")
    llm_server.script(tool_calls(call("repo_map", {"path": "store"})), text("Mapped."))
    mapped = run_hive("run", "map the store", *model, PYTHONPROFILEIMPORTTIME="1")

    assert answered.returncode == 0 and mapped.returncode == 0, mapped.stderr[-2000:]
    assert not imported(answered.stderr) & GRAMMARS
    assert imported(mapped.stderr) & GRAMMARS == {"tree_sitter_python"}
