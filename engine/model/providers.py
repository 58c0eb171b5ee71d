"""Which client speaks to a model: hive's own for the OpenAI chat-completions, OpenAI Responses and Anthropic
protocols (Gemini, Mistral and Azure OpenAI among the chat-completions ones), litellm for the rest.

Decided from the model string, the settings and litellm's model table read as data, so choosing never
imports litellm. An ``openai/`` model speaks the Responses API when it is written ``openai/responses/<name>``
(litellm's own spelling, so forcing litellm keeps the protocol) or when the table lists ``<name>`` as an
OpenAI model whose ``mode`` is ``responses`` (the Codex and ``-pro`` models, which have no chat endpoint).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from msgspec import Struct
from msgspec.structs import replace

from engine.model.client_settings import ModelSettings
from engine.model.pricing import model_entry

FORCE_LITELLM_ENV = "HIVE_PROVIDER_CLIENT"
"""``litellm`` sends every model through litellm (as the ``provider_client`` setting does)."""
RESPONSES_PREFIX = "responses/"
"""After ``openai/``: send this model through OpenAI's Responses API."""


class _Provider(Struct, frozen=True):
    base_url: str | None
    """The provider's own endpoint; None when the person must give one."""
    key_env: str | None
    base_env: str | None
    priced: bool
    """litellm's price table prices this provider's models."""
    priced_anywhere: bool = False
    """The model names are the provider's own, so they are priced at any base URL (a gateway in front of it)."""
    more_key_envs: tuple[str, ...] = ()
    """Further variables the key is read from when ``key_env`` is not set (as litellm reads them)."""


OPENAI_COMPATIBLE: dict[str, _Provider] = {
    "openai": _Provider("https://api.openai.com/v1", "OPENAI_API_KEY", "OPENAI_BASE_URL", True),
    "openrouter": _Provider("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "OPENROUTER_API_BASE", True),
    "deepseek": _Provider("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", "DEEPSEEK_API_BASE", True),
    "groq": _Provider("https://api.groq.com/openai/v1", "GROQ_API_KEY", "GROQ_API_BASE", True),
    "ollama": _Provider("http://localhost:11434/v1", None, "OLLAMA_API_BASE", False),
    "ollama_chat": _Provider("http://localhost:11434/v1", None, "OLLAMA_API_BASE", False),
    "lm_studio": _Provider("http://localhost:1234/v1", "LM_STUDIO_API_KEY", "LM_STUDIO_API_BASE", False),
    "hosted_vllm": _Provider(None, "HOSTED_VLLM_API_KEY", "HOSTED_VLLM_API_BASE", False),
    "gemini": _Provider(
        "https://generativelanguage.googleapis.com/v1beta",
        "GEMINI_API_KEY",
        "GEMINI_API_BASE",
        True,
        priced_anywhere=True,
        more_key_envs=("GOOGLE_API_KEY",),
    ),
    "mistral": _Provider(
        "https://api.mistral.ai/v1", "MISTRAL_API_KEY", "MISTRAL_API_BASE", True, priced_anywhere=True
    ),
}
"""Providers on the chat-completions protocol. Gemini's base is the Gemini API's root, as ``GEMINI_API_BASE`` is
for litellm; its OpenAI-compatible endpoint is ``{base}/openai`` (added unless the base already ends so)."""

AZURE = _Provider(
    None, "AZURE_API_KEY", "AZURE_API_BASE", True, priced_anywhere=True, more_key_envs=("AZURE_OPENAI_API_KEY",)
)
"""Azure OpenAI (``azure/<deployment>``): the chat-completions protocol at the resource's own address."""
AZURE_VERSION_ENV = "AZURE_API_VERSION"
AZURE_DEFAULT_VERSION = "2024-10-21"
"""The newest generally available data-plane version of Azure OpenAI's deployments API (tools, streamed usage)."""


ANTHROPIC = _Provider("https://api.anthropic.com", "ANTHROPIC_API_KEY", "ANTHROPIC_API_BASE", True)
"""Anthropic's messages API (``anthropic/*`` models)."""


class Endpoint(Struct, frozen=True, kw_only=True):
    """A provider endpoint for one model (OpenAI chat completions or Responses, or Anthropic messages)."""

    base_url: str
    model_name: str
    """The model as the server names it (the provider prefix removed)."""
    api_key: str | None
    """The key from the provider's environment variable, when the settings give none."""
    priced: bool
    provider: str = "openai"
    """The provider prefix of the model string (``openai``, ``gemini``, ``azure``...): its client's dialect."""
    api_version: str | None = None
    """Azure's ``api-version`` query value; None for the others (and for Azure's ``/openai/v1`` API)."""


def openai_compatible_endpoint(settings: ModelSettings, *, force_litellm: bool = False) -> Endpoint | None:
    """The chat-completions endpoint hive's own client should call for ``settings``, or None.

    None for litellm's models, and for models that speak the Responses API (``responses_endpoint``).
    """
    if speaks_responses(settings.model):
        return None
    return _openai_protocol_endpoint(settings, force_litellm=force_litellm)


def responses_endpoint(settings: ModelSettings, *, force_litellm: bool = False) -> Endpoint | None:
    """The endpoint hive's Responses client should call for ``settings``, or None when the model is not one.

    ``model_name`` is the name the server knows (``openai/`` and ``responses/`` removed); the base URL,
    key and pricing are found as for any ``openai/`` model.
    """
    if not speaks_responses(settings.model):
        return None
    endpoint = _openai_protocol_endpoint(settings, force_litellm=force_litellm)
    if endpoint is None:
        return None
    return replace(endpoint, model_name=endpoint.model_name.removeprefix(RESPONSES_PREFIX))


def speaks_responses(model: str) -> bool:
    """Whether ``model`` is an ``openai/`` model for the Responses API (by prefix, or by litellm's table)."""
    provider_name, slash, model_name = model.partition("/")
    if provider_name != "openai" or not slash:
        return False
    if model_name.startswith(RESPONSES_PREFIX):
        return bool(model_name.removeprefix(RESPONSES_PREFIX))
    entry = model_entry(model)
    return entry is not None and entry.get("litellm_provider") == "openai" and entry.get("mode") == "responses"


def _openai_protocol_endpoint(settings: ModelSettings, *, force_litellm: bool) -> Endpoint | None:
    if _litellm_forced(force_litellm):
        return None
    provider_name, slash, model_name = settings.model.partition("/")
    if provider_name == "azure" and slash and model_name:
        return _azure_endpoint(settings, model_name)
    provider = OPENAI_COMPATIBLE.get(provider_name)
    if not slash or provider is None or not model_name:
        return None
    base_url = settings.api_base or (os.environ.get(provider.base_env) if provider.base_env else None)
    base_url = base_url or provider.base_url
    if base_url is None:
        return None
    if provider_name in ("ollama", "ollama_chat") and not urlsplit(base_url).path.rstrip("/").endswith("/v1"):
        base_url = base_url.rstrip("/") + "/v1"  # Ollama's OpenAI-compatible API lives under /v1
    if provider_name == "gemini" and not urlsplit(base_url).path.rstrip("/").endswith("/openai"):
        base_url = base_url.rstrip("/") + "/openai"  # the Gemini API's OpenAI-compatible endpoint
    key = _key_from_environment(provider)
    priced = _is_priced(provider_name, base_url)
    return Endpoint(base_url=base_url, model_name=model_name, api_key=key, priced=priced, provider=provider_name)


def _azure_endpoint(settings: ModelSettings, deployment: str) -> Endpoint | None:
    """Azure OpenAI's endpoint for ``deployment``; None (litellm, which says what is missing) without a base URL."""
    base_url = settings.api_base or os.environ.get(str(AZURE.base_env))
    if not base_url:
        return None
    version = os.environ.get(AZURE_VERSION_ENV) or None
    if not urlsplit(base_url).path.rstrip("/").endswith("/openai/v1"):
        version = version or AZURE_DEFAULT_VERSION  # the deployments API needs one; the v1 API takes none
    key = _key_from_environment(AZURE)
    return Endpoint(
        base_url=base_url, model_name=deployment, api_key=key, priced=True, provider="azure", api_version=version
    )


def _key_from_environment(provider: _Provider) -> str | None:
    names = (provider.key_env, *provider.more_key_envs) if provider.key_env else ()
    return next((value for name in names if (value := os.environ.get(name))), None)


def _is_priced(provider_name: str, base_url: str) -> bool:
    """Only the provider's own endpoint bills at its listed prices (a custom base URL's prices are unknown), unless
    the provider's model names are its own (Gemini, Mistral): a gateway in front of it serves the same models."""
    provider = OPENAI_COMPATIBLE[provider_name]
    if provider.priced_anywhere:
        return True
    if not provider.priced or provider.base_url is None:
        return False
    return urlsplit(base_url).hostname == urlsplit(provider.base_url).hostname


def anthropic_endpoint(settings: ModelSettings, *, force_litellm: bool = False) -> Endpoint | None:
    """The endpoint hive's own Anthropic client should call for an ``anthropic/*`` model, or None for litellm.

    ``base_url`` is the API's root (``https://api.anthropic.com``); the client adds ``/v1/messages``.
    Anthropic models are priced from the table at any base URL, as litellm prices them.
    """
    if _litellm_forced(force_litellm):
        return None
    provider_name, slash, model_name = settings.model.partition("/")
    if provider_name != "anthropic" or not slash or not model_name:
        return None
    base_url = settings.api_base or os.environ.get("ANTHROPIC_API_BASE") or os.environ.get("ANTHROPIC_BASE_URL")
    key = os.environ.get("ANTHROPIC_API_KEY")
    return Endpoint(base_url=base_url or str(ANTHROPIC.base_url), model_name=model_name, api_key=key, priced=True)


def _litellm_forced(force_litellm: bool) -> bool:
    return force_litellm or os.environ.get(FORCE_LITELLM_ENV, "").strip().lower() == "litellm"


def key_env_for(model: str) -> str | None:
    """The environment variable that holds the key for ``model``'s provider; None for local servers.

    Providers hive knows name their own; for the rest, litellm's convention (``<PROVIDER>_API_KEY``).
    """
    provider_name, slash, _ = model.partition("/")
    if not slash:
        return None
    if provider_name == "anthropic":
        return ANTHROPIC.key_env
    if provider_name == "azure":
        return AZURE.key_env
    known = OPENAI_COMPATIBLE.get(provider_name)
    if known is not None:
        return known.key_env
    return f"{provider_name.upper()}_API_KEY"


def is_own_provider(provider_name: str) -> bool:
    """Whether hive's own clients know ``provider_name`` (its endpoint and key variable)."""
    return provider_name in ("anthropic", "azure") or provider_name in OPENAI_COMPATIBLE


def required_key_env(model: str, api_base: str | None) -> str | None:
    """The variable that must hold a key for ``model``, or None when none is needed.

    A key is needed by a hosted provider hive knows (OpenAI, Anthropic, OpenRouter, DeepSeek, Groq, Gemini,
    Mistral) when requests go to that provider's own host; a local server, or any other address, may need none.
    Azure's resource address is the person's own: its key is needed unless ``api_base`` sends requests elsewhere.
    """
    if model.startswith("azure/") and model != "azure/":
        return None if api_base else AZURE.key_env
    provider_name, slash, model_name = model.partition("/")
    provider = ANTHROPIC if provider_name == "anthropic" else OPENAI_COMPATIBLE.get(provider_name)
    if not slash or not model_name or provider is None or not provider.priced or provider.base_url is None:
        return None
    base_url = api_base or _base_from_environment(provider_name, provider) or provider.base_url
    if urlsplit(base_url).hostname != urlsplit(provider.base_url).hostname:
        return None
    return provider.key_env


def key_is_set(variable: str) -> bool:
    """Whether ``variable``, or a variable the same key is also read from (``GOOGLE_API_KEY``...), is set."""
    providers = (*OPENAI_COMPATIBLE.values(), AZURE)
    aliases = next((p.more_key_envs for p in providers if p.key_env == variable), ())
    return any(os.environ.get(name) for name in (variable, *aliases))


def _base_from_environment(provider_name: str, provider: _Provider) -> str | None:
    """The base URL the provider's own variables give (as the clients read them), if any."""
    if provider_name == "anthropic":
        return os.environ.get("ANTHROPIC_API_BASE") or os.environ.get("ANTHROPIC_BASE_URL")
    return os.environ.get(provider.base_env) if provider.base_env else None
