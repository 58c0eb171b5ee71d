"""Which models take hive's own client, and prices read from litellm's table as litellm itself computes them."""

from __future__ import annotations

import os

import pytest

from engine.model import litellm_import
from engine.model.client_settings import ModelSettings
from engine.model.pricing import cost_of, max_input_tokens, model_entry
from engine.model.providers import anthropic_endpoint, openai_compatible_endpoint
from engine.usage import Usage


@pytest.mark.parametrize(
    ("model", "api_base", "expected"),
    [
        ("openai/gpt-4o", None, ("https://api.openai.com/v1", "gpt-4o", True)),
        ("openai/my-model", "http://127.0.0.1:8080/v1", ("http://127.0.0.1:8080/v1", "my-model", False)),
        ("ollama/qwen2.5-coder", None, ("http://localhost:11434/v1", "qwen2.5-coder", False)),
        ("ollama_chat/llama3", "http://gpu-box:11434", ("http://gpu-box:11434/v1", "llama3", False)),
        ("openrouter/moonshotai/kimi-k2", None, ("https://openrouter.ai/api/v1", "moonshotai/kimi-k2", True)),
        ("groq/llama-3.3-70b-versatile", None, ("https://api.groq.com/openai/v1", "llama-3.3-70b-versatile", True)),
        ("hosted_vllm/qwen", "http://10.0.0.5:8000/v1", ("http://10.0.0.5:8000/v1", "qwen", False)),
        (
            "gemini/gemini-2.5-pro",
            None,
            ("https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-pro", True),
        ),
        ("gemini/gemini-2.5-pro", "http://gw:9000/v1beta", ("http://gw:9000/v1beta/openai", "gemini-2.5-pro", True)),
        ("gemini/gemini-2.5-pro", "http://gw:9000/g/openai/", ("http://gw:9000/g/openai/", "gemini-2.5-pro", True)),
        ("mistral/mistral-large-latest", None, ("https://api.mistral.ai/v1", "mistral-large-latest", True)),
        ("azure/my-gpt-4o", "https://r.openai.azure.com", ("https://r.openai.azure.com", "my-gpt-4o", True)),
    ],
)
def test_openai_protocol_models_take_hives_own_client(
    model: str, api_base: str | None, expected: tuple[str, str, bool]
) -> None:
    endpoint = openai_compatible_endpoint(ModelSettings(model=model, api_base=api_base))
    assert endpoint is not None
    assert (endpoint.base_url, endpoint.model_name, endpoint.priced) == expected


@pytest.mark.parametrize(
    "model", ["vertex_ai/gemini-2.5-pro", "bedrock/x", "gpt-4o", "hosted_vllm/qwen", "azure/no-base-url-set"]
)
def test_other_models_go_through_litellm(model: str) -> None:
    assert openai_compatible_endpoint(ModelSettings(model=model)) is None
    assert anthropic_endpoint(ModelSettings(model=model)) is None


def test_anthropic_models_take_hives_own_anthropic_client_not_the_openai_one() -> None:
    settings = ModelSettings(model="anthropic/claude-sonnet-4-5")
    assert openai_compatible_endpoint(settings) is None
    assert anthropic_endpoint(settings) is not None


def test_litellm_can_be_forced_by_setting_or_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = ModelSettings(model="openai/gpt-4o")
    assert openai_compatible_endpoint(settings, force_litellm=True) is None
    monkeypatch.setenv("HIVE_PROVIDER_CLIENT", "litellm")
    assert openai_compatible_endpoint(settings) is None


@pytest.mark.parametrize(
    "model",
    [
        "gpt-4o",
        "gpt-4o-mini",
        "deepseek/deepseek-chat",
        "groq/openai/gpt-oss-120b",
        "gemini/gemini-2.5-flash",
        "gemini/gemini-2.5-pro",
        "azure/gpt-4o",
        "mistral/mistral-large-latest",
        "mistral/codestral-latest",
    ],
)
def test_prices_from_the_table_equal_litellms_own_computation(model: str) -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm = litellm_import.load()
    usage = Usage(prompt_tokens=12_345, completion_tokens=678, cached_read_tokens=2_000)
    prompt_cost, completion_cost = litellm.cost_per_token(
        model=model, prompt_tokens=12_345, completion_tokens=678, cache_read_input_tokens=2_000
    )
    entry = model_entry(model)
    assert entry is not None
    assert cost_of(usage, entry) == pytest.approx(prompt_cost + completion_cost, rel=1e-9)
    assert max_input_tokens(model) == litellm.get_model_info(model)["max_input_tokens"]
