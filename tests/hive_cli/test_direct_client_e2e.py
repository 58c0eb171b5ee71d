"""`hive run` against an OpenAI-compatible, Responses API or Anthropic server takes hive's own client: litellm and the SDKs stay unloaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cassettes import CASSETTE_DIR, ReplayServer
from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer, Usage, call, text, tool_calls
from tests.support.local_http import LocalServer

# Writes which heavy modules were loaded when hive exits normally. hive skips interpreter teardown
# (and so atexit) once litellm is loaded, so a missing file means litellm was imported. The task runs
# no shell command, and nothing configures MCP servers, hooks, webhooks, permission files or result
# guards: hive's own code for those stays unloaded too, and so do the commands it does not run. hive's
# settings and tool arguments are msgspec records, so pydantic is not loaded either; no image is attached, so
# neither is Pillow.
PROBE = """
import atexit, json, os, sys
out = os.environ["HIVE_TEST_MODULES_OUT"]
heavy = ("litellm", "openai", "tiktoken", "mcp", "pydantic", "PIL")
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


LONG_TAIL = {
    # provider spelling: (model, the base-URL variable's path on the server, the key variable, the path posted to)
    "gemini": ("gemini/gemini-2.5-flash", "/v1beta", "GEMINI_API_KEY", "/v1beta/openai/chat/completions"),
    "azure": (
        "azure/gpt-4o",
        "",
        "AZURE_API_KEY",
        "/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
    ),
    "mistral": ("mistral/mistral-large-latest", "/v1", "MISTRAL_API_KEY", "/v1/chat/completions"),
}


def run_long_tail(
    server: LocalServer, workdir: Path, out: Path, provider: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """`hive run` with the provider's own variables (base URL and key) pointing at the local server."""
    model, base_path, key_env, _ = LONG_TAIL[provider]
    args = ["run", "list the files", "--yes", "-o", "json", "--model", model, "-C", str(workdir)]
    variables = {f"{provider.upper()}_API_BASE": server.url + base_path, key_env: f"key-for-{provider}"}
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=hive_env(HIVE_TEST_MODULES_OUT=str(out), **variables, **env),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


@pytest.mark.parametrize("provider", LONG_TAIL)
def test_gemini_azure_and_mistral_take_hives_own_client_at_their_own_urls(
    provider: str, llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    script_task(llm_server)
    out = tmp_path / "modules.json"
    done = run_long_tail(llm_server, tmp_path, out, provider)

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["text"] == "There is one file." and result["tool_calls"][0]["success"] is True
    sent = llm_server.chat_requests
    assert [request.path for request in sent] == [LONG_TAIL[provider][3]] * 2
    for request in sent:
        if provider == "azure":
            assert request.headers["api-key"] == "key-for-azure" and "authorization" not in request.headers
        else:
            assert request.headers["authorization"] == f"Bearer key-for-{provider}"
    assert ("stream_options" in sent[0].json) is (provider != "mistral")
    assert "a.txt" in sent[1].messages[-1]["content"]
    turn = result["usage"]["turns"][-1]
    if provider != "mistral":  # the scripted server sends usage only when asked; Mistral's own API sends it unasked
        assert (turn["prompt_tokens"], turn["completion_tokens"]) == (40, 5)
    if provider != "mistral":  # estimated usage is not priced
        assert result["usage"]["total"]["cost_usd"] > 0  # priced from litellm's table, read as data
    assert out.exists(), "litellm was imported (hive exited without teardown)"
    assert json.loads(out.read_text()) == (["tiktoken"] if provider == "mistral" else [])  # tiktoken: the estimate


@pytest.mark.parametrize("provider", ["azure", "mistral"])
def test_provider_client_litellm_still_takes_azure_and_mistral(
    provider: str, llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    script_task(llm_server)
    out = tmp_path / "modules.json"
    # litellm's Mistral chat route reads no MISTRAL_API_BASE: the base is given as hive's own setting.
    env = {"HIVE_PROVIDER_CLIENT": "litellm", "AZURE_API_VERSION": "2024-10-21"}
    if provider == "mistral":
        env["HIVE_API_BASE"] = llm_server.url + "/v1"
    done = run_long_tail(llm_server, tmp_path, out, provider, **env)

    assert done.returncode == 0, done.stdout[-600:]
    assert json.loads(done.stdout)["text"] == "There is one file."
    assert [request.path for request in llm_server.chat_requests] == [LONG_TAIL[provider][3]] * 2
    assert not out.exists(), "litellm should have been imported"


def test_provider_client_litellm_sends_gemini_to_the_native_api(llm_server: LLMServer, tmp_path: Path) -> None:
    out = tmp_path / "modules.json"
    done = run_long_tail(llm_server, tmp_path, out, "gemini", HIVE_PROVIDER_CLIENT="litellm")

    # The scripted server speaks only the OpenAI protocol: litellm's native request is refused, and said so.
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    paths = [request.path.split("?")[0] for request in llm_server.requests]
    assert paths and set(paths) == {"/v1beta/models/gemini-2.5-flash:streamGenerateContent"}, paths
    assert not llm_server.chat_requests
    assert not out.exists(), "litellm should have been imported"


@pytest.mark.parametrize(
    ("name", "provider", "words"),
    [
        ("azure/error_401_access_denied.yaml", "azure", "Access denied due to invalid subscription key"),
        ("mistral/error_401_unauthorized.yaml", "mistral", "): Unauthorized"),
    ],
)
def test_a_refused_key_ends_the_run_with_the_providers_words_and_the_fix(
    name: str, provider: str, words: str, tmp_path: Path
) -> None:
    out = tmp_path / "modules.json"
    with ReplayServer(CASSETTE_DIR / name) as server:
        done = run_long_tail(server, tmp_path, out, provider)

    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    result = json.loads(done.stdout)
    assert result["exit_reason"] == "error" and words in result["error"]
    assert result["fix"].startswith(f"set {LONG_TAIL[provider][2]}, or HIVE_API_KEY")
    assert json.loads(out.read_text()) == []
