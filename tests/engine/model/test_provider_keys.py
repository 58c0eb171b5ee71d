"""Which variable holds a litellm provider's key comes from litellm's data, or from a short table checked
against litellm's own source; a key in any variable litellm reads passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.model.litellm_data import litellm_folder
from engine.model.model_check import missing_key_variable
from engine.model.provider_keys import KEY_VARIABLES, litellm_key_need


@pytest.mark.parametrize("provider", sorted(KEY_VARIABLES))
def test_every_variable_of_the_table_is_one_litellm_reads(provider: str) -> None:
    folder = litellm_folder()
    assert folder is not None
    files = [*(folder / "llms").rglob("*.py"), *(folder / "litellm_core_utils").rglob("*.py")]
    source = "\n".join(p.read_text(encoding="utf-8") for p in (*files, folder / "utils.py", folder / "main.py"))
    for variable in KEY_VARIABLES[provider]:
        assert f'"{variable}"' in source, f"litellm no longer reads {variable} for {provider}"
    assert litellm_key_need(provider) is not None, f"litellm's data no longer says {provider} requires a key"


def test_litellm_data_names_the_variable_of_the_providers_it_configures_from_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("REFUSELESS_API_KEY", raising=False)
    monkeypatch.delenv("REFUSELESS_API_BASE", raising=False)
    assert missing_key_variable("refuseless/some-model", None) == "REFUSELESS_API_KEY"
    monkeypatch.setenv("REFUSELESS_API_KEY", "k")
    assert missing_key_variable("refuseless/some-model", None) is None


def test_any_variable_litellm_reads_an_api_base_or_a_keyless_provider_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_BASE", "MISTRAL_API_KEY", "MISTRAL_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    assert missing_key_variable("gemini/gemini-2.0-flash", None) == "GEMINI_API_KEY"
    assert missing_key_variable("mistral/mistral-large-latest", None) == "MISTRAL_API_KEY"
    assert missing_key_variable("gemini/gemini-2.0-flash", "http://127.0.0.1:4000") is None
    assert missing_key_variable("vertex_ai/gemini-2.0-flash", None) is None  # no API key: other credentials
    assert missing_key_variable("gemini", None) is None
    monkeypatch.setenv("GOOGLE_API_KEY", "k")
    assert missing_key_variable("gemini/gemini-2.0-flash", None) is None
    monkeypatch.setenv("MISTRAL_API_BASE", "http://127.0.0.1:4000")
    assert missing_key_variable("mistral/mistral-large-latest", None) is None


def test_the_data_is_read_from_files_not_by_importing_litellm() -> None:
    folder = litellm_folder()
    assert folder is not None and Path(folder, "proxy", "public_endpoints", "provider_create_fields.json").is_file()


def test_the_models_page_names_every_variable_of_the_table() -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "models.md").read_text(encoding="utf-8")
    for provider, variables in KEY_VARIABLES.items():
        assert f"`{provider}/`" in page, provider
        assert all(f"`{variable}`" in page for variable in variables), provider
