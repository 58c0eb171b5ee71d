"""`hive run` with MCP servers from the project's plugins.yaml: real hive, real servers, the scripted model."""

from __future__ import annotations

import contextlib
import json
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ConfigError
from tests.support.cli import hive_env, json_lines, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.mcp_servers import EVERYTHING, PY_SERVER, approve_project_servers, require_reference_servers
from tests.support.processes import gone_within
from tests.support.trust import trust

pytestmark = pytest.mark.usefixtures("reference_servers")


@pytest.fixture
def reference_servers() -> None:
    require_reference_servers()


ALLOW_EVERYTHING = (
    "permissions:\n  include_defaults: true\n  mcp_tools:\n    - {pattern: 'mcp__everything__*', action: allow}\n"
)


def project(tmp_path: Path, plugins: str, permissions: str | None = None) -> Path:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "plugins.yaml").write_text(plugins)
    if permissions is not None:
        (tmp_path / ".ironhive" / "permissions.yaml").write_text(permissions)
    approve_project_servers(tmp_path)
    with contextlib.suppress(ConfigError):  # a broken file cannot be trusted; the test is about its error
        trust(tmp_path)  # the project's own permission rules count once the person trusts it
    return tmp_path


def hive_run(server: LLMServer, workdir: Path, *extra: str) -> Any:
    return run_hive(
        "run", "use the tools", "-o", "stream-json", "--model", "openai/test-model",
        "--api-base", server.base_url, "-C", str(workdir), *extra,
    )  # fmt: skip


def offered(server: LLMServer, index: int) -> list[str]:
    return [tool["function"]["name"] for tool in server.chat_requests[index].json.get("tools", [])]


def test_hive_run_offers_the_servers_tools_from_the_first_call_and_streams_its_progress(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    marker = f"hive-e2e-{secrets.token_hex(6)}"
    root = project(
        tmp_path,
        f"plugins:\n  everything:\n    transport: stdio\n    command: {EVERYTHING}\n    args: [stdio, {marker}]\n",
        ALLOW_EVERYTHING,
    )
    long_args = {"duration": 0.4, "steps": 4}
    llm_server.script(
        tool_calls(call("mcp__everything__trigger-long-running-operation", long_args, id="long")),
        tool_calls(call("mcp__everything__echo", {"message": "through hive"}, id="echo")),
        text("done"),
    )
    done = hive_run(llm_server, root)

    assert done.returncode == 0, done.stderr
    first = offered(llm_server, 0)
    assert "mcp__everything__echo" in first and "mcp__everything__get-sum" in first
    assert "Long running operation completed" in llm_server.chat_requests[1].messages[-1]["content"]
    assert llm_server.chat_requests[2].messages[-1]["content"] == "Echo: through hive"
    lines = json_lines(done.stdout)
    progress = [line for line in lines if line["type"] == "tool_progress" and line["call_id"] == "long"]
    assert [(p["progress"], p["total"]) for p in progress] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    finished = {line["call_id"]: line for line in lines if line["type"] == "tool_call_finished"}
    assert set(finished) == {"long", "echo"}
    assert gone_within(marker, 5)


def user_rules(hive_home: Path, text_: str) -> None:
    (hive_home / "config").mkdir(parents=True, exist_ok=True)
    (hive_home / "config" / "permissions.yaml").write_text("permissions:\n  include_defaults: true\n" + text_)


def results_of(server: LLMServer, request: int = 1) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in server.chat_requests[request].messages if m["role"] == "tool"}


def test_a_servers_read_only_label_allows_nothing_until_the_users_rules_say_so(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    root = project(tmp_path, f"plugins:\n  py:\n    command: {sys.executable}\n    args: ['{PY_SERVER}']\n")
    both = tool_calls(
        call("mcp__py__echo", {"text": "asked"}, id="echo"), call("mcp__py__peek", {"text": "hi"}, id="peek")
    )
    llm_server.script(both, text("done"), both, text("done"))

    assert hive_run(llm_server, root).returncode == 0
    refused = results_of(llm_server)
    assert "mcp__py__peek" in refused["peek"] and refused["peek"] != "HI"  # its readOnlyHint is only a claim
    user_rules(isolated_hive, "  mcp_read_only: allow\n")
    assert hive_run(llm_server, root).returncode == 0

    results = results_of(llm_server, 3)
    assert results["peek"] == "HI"
    assert results["echo"] != "asked" and "mcp__py__echo" in results["echo"]


def test_plan_mode_offers_only_the_mcp_tools_the_users_rules_call_read_only(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    root = project(tmp_path, f"plugins:\n  py:\n    command: {sys.executable}\n    args: ['{PY_SERVER}']\n")
    llm_server.script(text("planned"), text("planned again"))
    assert hive_run(llm_server, root, "--mode", "plan").returncode == 0
    assert [name for name in offered(llm_server, 0) if name.startswith("mcp__")] == []
    user_rules(isolated_hive, "  read_only_tools: [mcp__py__peek]\n")

    assert hive_run(llm_server, root, "--mode", "plan").returncode == 0
    assert [name for name in offered(llm_server, 1) if name.startswith("mcp__")] == ["mcp__py__peek"]


def test_a_server_that_cannot_start_is_a_notice_and_the_run_goes_on(llm_server: LLMServer, tmp_path: Path) -> None:
    root = project(tmp_path, f"plugins:\n  gone:\n    command: {tmp_path / 'missing-server'}\n")
    llm_server.script(text("fine"))
    done = hive_run(llm_server, root)

    assert done.returncode == 0, done.stderr
    started = json_lines(done.stdout)[0]
    assert any("MCP server gone" in n and "no such program" in n for n in started["notices"]), started


def test_a_broken_plugins_file_is_a_configuration_error(llm_server: LLMServer, tmp_path: Path) -> None:
    root = project(tmp_path, "plugins:\n  x:\n    transport: stdio\n    url: http://127.0.0.1:9\n")
    done = hive_run(llm_server, root)

    assert done.returncode == 2
    assert "plugins.yaml:2: plugins.x" in done.stderr and "Traceback" not in done.stderr
    assert llm_server.chat_requests == []
    assert done.stdout == ""


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"])
def test_stopping_hive_mid_call_leaves_no_server_process(
    llm_server: LLMServer, tmp_path: Path, sent: signal.Signals, status: int
) -> None:
    marker = f"hive-e2e-{secrets.token_hex(6)}"
    in_flight = tmp_path / "hang-arrived"
    root = project(
        tmp_path,
        f"plugins:\n  py:\n    command: {sys.executable}\n"
        f"    args: ['{PY_SERVER}', --marker, {marker}, --hang-flag, '{in_flight}']\n",
        "permissions:\n  include_defaults: true\n  mcp_tools:\n    - {pattern: 'mcp__py__*', action: allow}\n",
    )
    llm_server.script(tool_calls(call("mcp__py__hang", {}, id="hang")), text("not reached"))
    command = [sys.executable, "-m", "hive_cli", "run", "wait", "-o", "stream-json", "--model", "openai/test-model"]
    process = subprocess.Popen(
        [*command, "--api-base", llm_server.base_url, "-C", str(root)],
        env=hive_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60  # a failure guard only: the server touches the flag when the call arrives
        while not in_flight.exists():
            assert time.monotonic() < deadline and process.poll() is None, "the call never reached the server"
            time.sleep(0.05)
        process.send_signal(sent)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == status, stderr
    assert "Traceback" not in stderr
    assert gone_within(marker, 5), f"{sent.name} left the MCP server running"


def test_a_server_from_mcp_json_is_offered_too(llm_server: LLMServer, tmp_path: Path, isolated_hive: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"py": {"command": sys.executable, "args": [str(PY_SERVER)]}}})
    )
    approve_project_servers(tmp_path)
    user_rules(isolated_hive, "  mcp_tools: [{pattern: 'mcp__py__peek', action: allow}]\n")
    llm_server.script(tool_calls(call("mcp__py__peek", {"text": "json"}, id="peek")), text("done"))
    done = hive_run(llm_server, tmp_path)

    assert done.returncode == 0, done.stderr
    assert "mcp__py__peek" in offered(llm_server, 0)
    assert llm_server.chat_requests[1].messages[-1]["content"] == "JSON"


def test_the_mcp_setting_can_switch_the_servers_off(llm_server: LLMServer, tmp_path: Path) -> None:
    root = project(tmp_path, f"plugins:\n  everything:\n    command: {EVERYTHING}\n    args: [stdio]\n")
    (root / ".ironhive" / "settings.yaml").write_text("mcp:\n  enabled: false\n")
    llm_server.script(text("no servers"))
    done = hive_run(llm_server, root)

    assert done.returncode == 0, done.stderr
    assert not [name for name in offered(llm_server, 0) if name.startswith("mcp__")]
