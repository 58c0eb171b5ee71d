"""Embeddings (memory, tool retrieval) go where the chat goes: ``--api-base`` and ``--api-key`` and their settings."""

from __future__ import annotations

import json
from pathlib import Path

from engine.retrieval.options import ToolRetrievalOptions
from engine.retrieval.toolset import retriever_for
from engine.tools.base import ToolSpec
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.trust import trust

MEMORY = "memory:\n  enabled: true\n  embedding_model: openai/test-embed\n"
NO_KEYS = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}


def project_with_memory(root: Path) -> Path:
    (root / ".ironhive").mkdir(parents=True)
    (root / ".ironhive" / "settings.yaml").write_text(MEMORY)
    trust(root)
    return root


def remember_run(server: LLMServer, project: Path, *key: str) -> dict[str, object]:
    server.script(tool_calls(call("remember", {"text": "The staging database is marmot"})), text("noted"))
    done = run_hive(
        "run",
        "remember it",
        "-o",
        "json",
        "-m",
        "openai/test-model",
        "--api-base",
        server.base_url,
        *key,
        "-C",
        str(project),
        **NO_KEYS,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_remember_embeds_at_the_api_base_with_no_key_for_a_local_server(llm_server: LLMServer, tmp_path: Path) -> None:
    result = remember_run(llm_server, project_with_memory(tmp_path / "project"))

    [remembered] = result["tool_calls"]  # type: ignore[misc]
    assert remembered["success"], remembered["output"]
    [embedding] = llm_server.embedding_requests
    assert embedding.json["model"] == "test-embed" and embedding.json["input"] == ["The staging database is marmot"]


def test_remember_embeds_with_the_api_key_given(llm_server: LLMServer, tmp_path: Path) -> None:
    remember_run(llm_server, project_with_memory(tmp_path / "project"), "--api-key", "sk-given")

    [embedding] = llm_server.embedding_requests
    assert embedding.headers["authorization"] == "Bearer sk-given"


def test_tool_retrieval_embeds_at_the_api_base_with_the_key(llm_server: LLMServer) -> None:
    options = ToolRetrievalOptions(embedding_model="openai/test-embed")
    retriever = retriever_for(options, llm_server.base_url, "sk-given")
    specs = [
        ToolSpec(name=n, description=d, parameters={}) for n, d in (("git_log", "show commits"), ("weather", "sky"))
    ]

    scores = retriever.scores("which commits changed the parser", specs)

    assert getattr(retriever, "failure", None) is None
    assert set(scores) == {"git_log", "weather"}
    embedded = [text for r in llm_server.embedding_requests for text in r.json["input"]]
    assert embedded == ["git_log: show commits", "weather: sky", "which commits changed the parser"]
    assert {r.headers["authorization"] for r in llm_server.embedding_requests} == {"Bearer sk-given"}
