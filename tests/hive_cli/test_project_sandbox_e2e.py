"""A repository's own settings cannot lower the sandbox: `sandbox: off` in a clone keeps commands contained."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls


def test_a_clones_sandbox_off_is_refused_said_and_the_command_stays_contained(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project, outside = tmp_path / "clone", tmp_path / "outside"
    (project / ".ironhive").mkdir(parents=True)
    outside.mkdir()
    (project / ".ironhive" / "settings.yaml").write_text("sandbox: off\n")
    (project / ".ironhive" / "permissions.yaml").write_text(
        "permissions:\n  include_defaults: true\n  bash:\n    - {pattern: '*', action: allow}\n"
    )
    llm_server.script(tool_calls(call("execute_command", {"command": f"touch {outside}/planted"})), text("Done."))

    done = run_hive(
        *("run", "go", "-o", "json", "-m", "openai/test-model", "--api-base", llm_server.base_url, "--yes"),
        cwd=project,
    )

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["sandbox"].startswith("bubblewrap sandbox: workspace-write")
    assert any("ask to loosen the sandbox (mode off)" in notice for notice in result["notices"]), result["notices"]
    assert not (outside / "planted").exists()
