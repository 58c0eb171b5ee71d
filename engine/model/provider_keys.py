"""Which environment variable holds the key of a provider hive reaches through litellm, read as data.

litellm ships, as data, which providers require an API key (the credential fields of its providers) and
the key variable of the providers it configures from data (``llms/openai_like/providers.json``). The
providers it configures in code read their key from variables named only in that code: ``KEY_VARIABLES``
lists the common ones (tests/engine/model/test_provider_keys.py checks each name against litellm's source).
"""

from __future__ import annotations

import os

from msgspec import Struct

from engine.model.litellm_data import CREDENTIAL_FIELDS, OPENAI_LIKE_PROVIDERS, litellm_json

KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_AI_API_KEY", "TOGETHER_API_KEY", "TOGETHER_AI_TOKEN"),
    "xai": ("XAI_API_KEY",),
    "cohere": ("COHERE_API_KEY", "CO_API_KEY"),
    "fireworks_ai": ("FIREWORKS_API_KEY", "FIREWORKS_AI_API_KEY", "FIREWORKSAI_API_KEY", "FIREWORKS_AI_TOKEN"),
    "perplexity": ("PERPLEXITYAI_API_KEY", "PERPLEXITY_API_KEY"),
    "cerebras": ("CEREBRAS_API_KEY",),
    "deepinfra": ("DEEPINFRA_API_KEY",),
    "sambanova": ("SAMBANOVA_API_KEY",),
}
"""The variables litellm reads a key from, for providers whose key variable litellm names only in code
(the first is the one hive suggests); a provider missing here and from litellm's data is not checked."""


class KeyNeed(Struct, frozen=True):
    """A provider's key: the variables any of which may hold it, and the variables that point it elsewhere."""

    variables: tuple[str, ...]
    base_variables: tuple[str, ...]
    """Set one of these and requests go to another address, which may need no key."""


def litellm_key_need(provider: str) -> KeyNeed | None:
    """Where ``provider``'s key is read from when litellm says the provider requires one; None otherwise."""
    if not _requires_key(provider):
        return None
    data = litellm_json(OPENAI_LIKE_PROVIDERS)
    configured = data.get(provider) if isinstance(data, dict) else None
    if isinstance(configured, dict) and isinstance(configured.get("api_key_env"), str):
        base = configured.get("api_base_env")
        return KeyNeed((configured["api_key_env"],), (base,) if isinstance(base, str) else ())
    variables = KEY_VARIABLES.get(provider)
    if variables is None:
        return None
    return KeyNeed(variables, (f"{provider.upper()}_API_BASE",))


def missing_key_variable(provider: str) -> str | None:
    """The variable to name when ``provider`` requires a key and no variable it is read from is set."""
    need = litellm_key_need(provider)
    if need is None or any(os.environ.get(name) for name in (*need.variables, *need.base_variables)):
        return None
    return need.variables[0]


def _requires_key(provider: str) -> bool:
    """Whether litellm's credential fields mark ``provider``'s API key as required."""
    data = litellm_json(CREDENTIAL_FIELDS)
    for entry in data if isinstance(data, list) else ():
        if isinstance(entry, dict) and entry.get("litellm_provider") == provider:
            fields = entry.get("credential_fields")
            for field in fields if isinstance(fields, list) else ():
                if isinstance(field, dict) and field.get("key") == "api_key" and field.get("required") is True:
                    return True
    return False
