"""A hosted provider's missing API key is a configuration error: exit 2 before any request, naming where a key goes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.model.model_check import check_api_key
from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import LLMServer, text

NO_KEYS = {"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "OPENAI_BASE_URL": "", "ANTHROPIC_BASE_URL": ""}
LITELLM_KEYS = {
    "GEMINI_API_KEY": "",
    "GOOGLE_API_KEY": "",
    "MISTRAL_API_KEY": "",
    "TOGETHERAI_API_KEY": "",
    "TOGETHER_AI_API_KEY": "",
    "TOGETHER_API_KEY": "",
    "XAI_API_KEY": "",
    "COHERE_API_KEY": "",
    "CO_API_KEY": "",
    "FIREWORKS_API_KEY": "",
    "FIREWORKS_AI_API_KEY": "",
    "FIREWORKSAI_API_KEY": "",
}


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


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("gemini/gemini-2.0-flash", "GEMINI_API_KEY"),
        ("mistral/mistral-large-latest", "MISTRAL_API_KEY"),
        ("together_ai/meta-llama/Llama-3-70b-chat-hf", "TOGETHERAI_API_KEY"),
        ("xai/grok-2", "XAI_API_KEY"),
        ("cohere/command-r", "COHERE_API_KEY"),
        ("fireworks_ai/accounts/fireworks/models/llama-v3-70b-instruct", "FIREWORKS_API_KEY"),
    ],
)
def test_a_litellm_provider_without_a_key_exits_2_naming_its_variable(
    tmp_path: Path, model: str, variable: str
) -> None:
    done = run_hive("run", "-m", model, "-C", str(tmp_path), "hi", **NO_KEYS, **LITELLM_KEYS)
    assert done.returncode == 2, done.stderr
    assert f"export {variable}=" in done.stderr and "--api-key" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_litellm_provider_without_a_key_is_said_before_litellm_is_imported(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hive_cli", "run", "hi", "-m", "gemini/gemini-2.0-flash"]
        + ["-C", str(tmp_path)],
        env=hive_env(**NO_KEYS, **LITELLM_KEYS),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    assert len(said) == 1 and "export GEMINI_API_KEY=" in said[0]
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert "litellm" not in imported


def _user_settings(home: Path, text: str) -> None:
    folder = home / "config"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.yaml").write_text(text)


def test_an_advisor_on_another_provider_without_a_key_exits_2_naming_the_advisor(
    tmp_path: Path, isolated_hive: Path
) -> None:
    _user_settings(isolated_hive, "advisor:\n  model: gemini/gemini-2.0-flash\n")
    done = run_hive(
        "run",
        "-m",
        "openai/gpt-4o",
        "-C",
        str(tmp_path),
        "hi",
        **{**NO_KEYS, **LITELLM_KEYS, "OPENAI_API_KEY": "sk-test"},
    )
    assert done.returncode == 2, done.stderr
    assert "export GEMINI_API_KEY=" in done.stderr and "advisor" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_agent_on_another_provider_without_a_key_exits_2_naming_the_agent(
    tmp_path: Path, isolated_hive: Path
) -> None:
    agents = isolated_hive / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\ndescription: Reviews a diff.\nmodel: mistral/mistral-large-latest\n---\nYou review changes.\n"
    )
    done = run_hive(
        "run",
        "-m",
        "openai/gpt-4o",
        "-C",
        str(tmp_path),
        "hi",
        **{**NO_KEYS, **LITELLM_KEYS, "OPENAI_API_KEY": "sk-test"},
    )
    assert done.returncode == 2, done.stderr
    assert "export MISTRAL_API_KEY=" in done.stderr and "agent reviewer" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_advisor_on_the_main_models_provider_is_covered_by_its_key(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    _user_settings(isolated_hive, "advisor:\n  model: openai/big-model\n")
    llm_server.script(text("hello"))
    done = run_hive(
        "run", "-m", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(tmp_path), "hi", **NO_KEYS
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello"
