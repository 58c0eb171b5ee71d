"""hive loads no pydantic plugin, and the commands it runs keep the environment the user gave it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.support.cli import NETBLOCK_DIR, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.mcp_servers import PY_SERVER, approve_project_servers

# A plugin that says so when it is loaded: pydantic imports it through the entry point.
PLUGIN = """
import os
with open(os.environ["HIVE_TEST_PLUGIN_MARKER"], "a") as marker:
    marker.write("loaded\\n")


class _Plugin:
    def new_schema_validator(self, *args, **kwargs):
        return None, None, None


plugin = _Plugin()
"""
SHOW_VARIABLE = 'echo "plugins=${PYDANTIC_DISABLE_PLUGINS-unset}"'
# hive's own records are msgspec's; a run that connects an MCP server imports the SDK, which is built on pydantic.
PLUGINS_FILE = f"plugins:\n  py:\n    command: {sys.executable}\n    args: ['{PY_SERVER}']\n"


def install_plugin(site: Path) -> None:
    site.mkdir()
    (site / "hive_probe_plugin.py").write_text(PLUGIN)
    info = site / "hive_probe_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hive-probe-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pydantic]\nprobe = hive_probe_plugin:plugin\n")


def run_with_plugin(llm_server: LLMServer, tmp_path: Path, **env: str) -> tuple[bool, str]:
    """(whether the plugin was loaded, what the command printed) for a run whose one command shows the variable."""
    site, marker, project = tmp_path / "site", tmp_path / "marker", tmp_path / "project"
    install_plugin(site)
    (project / ".ironhive").mkdir(parents=True)
    (project / ".ironhive" / "plugins.yaml").write_text(PLUGINS_FILE)
    approve_project_servers(project)  # a server never seen: the run waits for it to connect
    llm_server.script(tool_calls(call("execute_command", {"command": SHOW_VARIABLE})), text("Shown."))
    done = run_hive(
        *("run", "show it", "-o", "json", "-m", "openai/test-model", "--api-base", llm_server.base_url, "--yes"),
        cwd=project,
        PYTHONPATH=os.pathsep.join((str(NETBLOCK_DIR), str(site))),
        HIVE_TEST_PLUGIN_MARKER=str(marker),
        **env,
    )
    assert done.returncode == 0, done.stderr
    return marker.exists(), json.loads(done.stdout)["tool_calls"][0]["output"]


def test_no_plugin_is_loaded_and_the_command_does_not_inherit_the_switch(llm_server: LLMServer, tmp_path: Path) -> None:
    loaded, output = run_with_plugin(llm_server, tmp_path)
    assert not loaded
    assert "plugins=unset" in output


def test_a_user_who_sets_the_variable_keeps_it_and_passes_it_on(llm_server: LLMServer, tmp_path: Path) -> None:
    loaded, output = run_with_plugin(llm_server, tmp_path, PYDANTIC_DISABLE_PLUGINS="")
    assert loaded  # an empty value turns no plugin off: pydantic loads them, as the user asked
    assert "plugins=\n" in output
