"""`hive run` against an OpenAI-compatible, Responses API or Anthropic server takes hive's own client: litellm and the SDKs stay unloaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cassettes import CASSETTE_DIR, ReplayServer
from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer, Usage, call, text, tool_calls
from tests.support.local_http import LocalServer

# Writes which heavy modules were loaded when hive exits normally. hive skips interpreter teardown
# (and so atexit) once litellm is loaded, so a missing file means litellm was imported. The task runs
# no shell command, and nothing configures MCP servers, hooks, webhooks, permission files or result
# guards: hive's own code for those stays unloaded too, and so do the commands it does not run. hive's
# settings and tool arguments are msgspec records, so pydantic is not loaded either.
PROBE = """
import atexit, json, os, sys
out = os.environ["HIVE_TEST_MODULES_OUT"]
heavy = ("litellm", "openai", "tiktoken", "mcp", "pydantic")
unused = (
    "engine.mcp.manager", "engine.mcp.entries", "engine.hooks.runner", "engine.webhooks.payloads",
    "engine.sandbox.profile", "engine.policy.permission_files", "engine.policy.injection", "engine.policy.shell",
    "engine.policy.tables", "engine.policy.argspec",
    "hive_cli.mcp_app", "hive_cli.research_app", "hive_cli.checkpoints_app",
)
atexit.register(lambda: open(out, "w").write(json.dumps([m for m in (*heavy, *unused) if m in sys.modules])))
sys.argv = ["hive", *sys.argv[1:]]
from hive_cli.main import main
main()
"""


def run_probed(
    server: LocalServer, workdir: Path, out: Path, model: str = "openai/test-model", **env: str
) -> subprocess.CompletedProcess[str]:
    base = server.base_url if model.startswith("openai/") else server.url
    args = ["run", "list the files", "--yes", "-o", "json", "--model", model]
    args += ["--api-base", base, "--api-key", "sk-test", "-C", str(workdir)]
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=hive_env(HIVE_TEST_MODULES_OUT=str(out), **env),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def script_task(server: LLMServer) -> None:
    server.script(
        tool_calls(call("list_directory", {}, id="ls")),
        text("There is one file.", usage=Usage(prompt_tokens=40, completion_tokens=5)),
    )


def test_hive_run_on_an_openai_compatible_server_never_imports_litellm(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    script_task(llm_server)
    out = tmp_path / "modules.json"
    done = run_probed(llm_server, tmp_path, out)

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["text"] == "There is one file." and result["tool_calls"][0]["success"] is True
    assert "a.txt" in llm_server.chat_requests[1].messages[-1]["content"]
    assert result["usage"]["turns"][-1]["prompt_tokens"] == 40
    assert out.exists(), "litellm was imported (hive exited without teardown)"
    assert json.loads(out.read_text()) == []


def test_provider_client_litellm_sends_the_same_task_through_litellm(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    script_task(llm_server)
    out = tmp_path / "modules.json"
    done = run_probed(llm_server, tmp_path, out, HIVE_PROVIDER_CLIENT="litellm")

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"] == "There is one file."
    assert not out.exists(), "litellm should have been imported"


def test_hive_run_on_anthropic_never_imports_litellm(tmp_path: Path) -> None:
    out = tmp_path / "modules.json"
    with ReplayServer(CASSETTE_DIR / "anthropic/stream_thinking_then_text_gzip.yaml") as server:
        done = run_probed(server, tmp_path, out, model="anthropic/claude-haiku-4-5")
        sent = server.requests

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["text"].startswith("1. **Pouch**")
    assert [request.path for request in sent] == ["/v1/messages"]
    assert out.exists(), "litellm was imported (hive exited without teardown)"
    assert json.loads(out.read_text()) == []


def test_hive_run_on_the_responses_api_never_imports_litellm(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    script_task(llm_server)
    out = tmp_path / "modules.json"
    done = run_probed(llm_server, tmp_path, out, model="openai/responses/test-model")

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["text"] == "There is one file." and result["tool_calls"][0]["success"] is True
    sent = llm_server.responses_requests
    assert len(sent) == 2 and not llm_server.chat_requests
    assert sent[0].json["model"] == "test-model" and sent[0].json["instructions"]
    function_call, output = sent[1].json["input"][-2:]
    assert (function_call["type"], function_call["call_id"], function_call["name"]) == (
        "function_call",
        "ls",
        "list_directory",
    )
    assert output["type"] == "function_call_output" and "a.txt" in output["output"]
    assert result["usage"]["turns"][-1]["prompt_tokens"] == 40
    assert out.exists(), "litellm was imported (hive exited without teardown)"
    assert json.loads(out.read_text()) == []
