"""detect-secrets and google-re2 load at the first tool result, never on hive's start path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls

REDACTION_ONLY = {"detect_secrets", "re2", "engine.redaction.scan"}


def imported(stderr: str) -> set[str]:
    """The modules ``-X importtime`` reported (top-level packages, and engine's modules whole)."""
    names = {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}
    return {name if name.startswith("engine.") else name.split(".")[0] for name in names}


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["run", "--help"]], ids=" ".join)
def test_hive_starts_without_the_redaction_rules(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hive_cli", *args], env=hive_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = imported(done.stderr)
    assert "hive_cli" in modules
    assert not modules & REDACTION_ONLY


def test_a_run_loads_the_rules_at_its_first_tool_result_and_not_before(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    model = ("-m", "openai/test-model", "--api-base", llm_server.base_url)
    llm_server.script(text("Nothing to run."))
    answered = run_hive("run", "say hello", *model, cwd=tmp_path, PYTHONPROFILEIMPORTTIME="1")
    llm_server.script(tool_calls(call("execute_command", {"command": "echo hello"})), text("Done."))
    ran_a_tool = run_hive("run", "echo hello", *model, cwd=tmp_path, PYTHONPROFILEIMPORTTIME="1")

    assert answered.returncode == 0 and ran_a_tool.returncode == 0, ran_a_tool.stderr[-2000:]
    assert "engine.agent" in imported(answered.stderr)
    assert not imported(answered.stderr) & REDACTION_ONLY
    assert REDACTION_ONLY <= imported(ran_a_tool.stderr)
