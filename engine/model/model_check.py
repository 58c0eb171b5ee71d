"""Configuration mistakes in the model settings, caught before any request: exit 2 at once, naming the setting.

A model whose provider litellm does not know, an API base that is not a URL, or a hosted provider with no
key would otherwise fail only after seconds of retries, in litellm's or the provider's words.
"""

from __future__ import annotations

from types import ModuleType
from typing import NoReturn
from urllib.parse import urlsplit

from engine.errors import UserError
from engine.model.litellm_data import PROVIDER_ENDPOINTS, litellm_json
from engine.model.provider_keys import missing_key_variable as provider_key_variable
from engine.model.providers import is_own_provider, key_is_set, required_key_env


def check_api_base(api_base: str | None, source: str) -> None:
    """Raise ``UserError`` unless ``api_base`` is an http(s) URL with a host."""
    if api_base is None:
        return
    parts = urlsplit(api_base.strip())
    if parts.scheme in ("http", "https") and parts.hostname:
        return
    raise UserError(
        f"{source} is {api_base!r}, which is not a URL: give the server's address, "
        "e.g. http://127.0.0.1:8080/v1 or https://api.openai.com/v1"
    )


def check_provider(litellm: ModuleType, model: str, source: str, api_base: str | None) -> None:
    """Raise ``UserError`` when litellm cannot tell which provider serves ``model``."""
    try:
        litellm.get_llm_provider(model=model, api_base=api_base)
    except Exception:  # litellm raises its BadRequestError (and others) for a model it cannot route
        _unknown(model, source)


def _unknown(model: str, source: str) -> NoReturn:
    provider = model.split("/", 1)[0] if "/" in model else ""
    what = f"the provider {provider!r} is unknown" if provider else "it names no provider"
    where = f"model in the {source}" if source.endswith("settings") else source or "the model setting"
    raise UserError(
        f"{where} is {model!r}, but {what}: write provider/model, "
        "e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5 or ollama/qwen2.5-coder"
    ) from None


_NOT_IN_LITELLM_DATA = (
    "a2a_agent",
    "aiohttp_openai",
    "aws_textract",
    "azure_speech",
    "databricks_agent",
    "dotprompt",
    "humanloop",
    "langfuse",
    "litellm_agent",
    "nano-gpt",
    "sagemaker_nova",
    "text-completion-inception",
    "vertex_ai_beta",
)
"""Providers litellm routes (its ``provider_list``) that its shipped endpoint data does not list;
tests/engine/model/test_known_providers.py fails when litellm adds another."""


def known_providers() -> frozenset[str] | None:
    """The providers litellm routes, read from the data file it ships (no import of litellm: ~6 s);
    None when the file cannot be read (then litellm itself judges, at the first request)."""
    data = litellm_json(PROVIDER_ENDPOINTS)
    providers = data.get("providers") if isinstance(data, dict) else None
    if not isinstance(providers, dict) or not providers:
        return None
    from engine.model.providers import OPENAI_COMPATIBLE

    return frozenset((*providers, *_NOT_IN_LITELLM_DATA, *OPENAI_COMPATIBLE, "anthropic"))


def check_provider_named(model: str, source: str, api_base: str | None) -> None:
    """``UserError`` at once for ``provider/model`` whose provider nobody knows, before litellm is imported.

    Only a model with a provider prefix and no API base is judged here: with a base URL, or without a
    prefix, litellm's own routing decides (it may infer the provider).
    """
    provider, slash, _ = model.partition("/")
    if not slash or api_base is not None:
        return
    known = known_providers()
    if known is not None and provider not in known:
        _unknown(model, source)


def check_api_key(model: str, api_base: str | None, api_key: str | None, source: str) -> None:
    """Raise ``UserError`` when ``model``'s provider needs a key and neither hive's settings nor its variable give one.

    Checked when a client for the model is made: before any request, and only by what talks to the model.
    ``source`` says where the model was chosen (``--model``, ``advisor.model``, an agent's file...).
    """
    if api_key:
        return
    variable = missing_key_variable(model, api_base)
    if variable is None:
        return
    where = f" (from {source})" if source else ""
    raise UserError(
        f"{model}{where} needs an API key and none is set: export {variable}=..., or HIVE_API_KEY, "
        "or pass --api-key (api_key_env in settings.yaml names another variable to read it from)"
    )


def missing_key_variable(model: str, api_base: str | None) -> str | None:
    """The variable that should hold ``model``'s key when none of the variables its key is read from is set.

    hive's own providers name theirs; a provider reached through litellm is judged by litellm's data
    (``engine.model.provider_keys``), unless an API base sends the requests elsewhere.
    """
    variable = required_key_env(model, api_base)
    if variable is not None:
        return None if key_is_set(variable) else variable
    provider, slash, name = model.partition("/")
    if not slash or not name or api_base is not None or is_own_provider(provider):
        return None
    return provider_key_variable(provider)
