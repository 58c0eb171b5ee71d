"""A hosted provider's missing API key is a configuration error: exit 2 before any request, naming where a key goes."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import UserError
from engine.model.model_check import check_api_key
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text

NO_KEYS = {"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "OPENAI_BASE_URL": "", "ANTHROPIC_BASE_URL": ""}


@pytest.mark.parametrize(
    ("model", "variable"),
    [("openai/gpt-4o", "OPENAI_API_KEY"), ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY")],
)
def test_a_hosted_model_without_a_key_exits_2_naming_the_variable(tmp_path: Path, model: str, variable: str) -> None:
    done = run_hive("run", "-m", model, "-C", str(tmp_path), "hi", **NO_KEYS)
    assert done.returncode == 2, done.stderr
    assert f"export {variable}=" in done.stderr
    assert "HIVE_API_KEY" in done.stderr and "--api-key" in done.stderr
    assert "Traceback" not in done.stderr and "retrying" not in done.stderr.lower()


def test_a_key_from_any_place_hive_reads_or_a_local_address_passes_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NO_KEYS:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        check_api_key("openai/gpt-4o", None, None, "--model")
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        check_api_key("openai/gpt-4o", "https://api.openai.com/v1", None, "--model")
    check_api_key("openai/gpt-4o", None, "sk-from-flag", "--model")
    check_api_key("openai/gpt-4o", "http://127.0.0.1:8080/v1", None, "--model")
    check_api_key("ollama/qwen2.5-coder", None, None, "--model")
    check_api_key("lm_studio/qwen", None, None, "--model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:4000/v1")
    check_api_key("openai/gpt-4o", None, None, "--model")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    check_api_key("openai/gpt-4o", "https://api.openai.com/v1", None, "--model")


def test_a_local_server_needs_no_key(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("hello"))
    done = run_hive(
        "run", "-m", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(tmp_path), "hi", **NO_KEYS
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello"
    assert llm_server.chat_requests[0].headers.get("authorization", "").startswith("Bearer ")
