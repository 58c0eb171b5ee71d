"""Data files litellm ships (its provider list, its providers' credential fields), read without importing it.

Importing litellm costs seconds; these files answer "which providers exist" and "which need a key" at once.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

PROVIDER_ENDPOINTS = "provider_endpoints_support_backup.json"
"""Every provider litellm routes, with the endpoints each supports."""
CREDENTIAL_FIELDS = "proxy/public_endpoints/provider_create_fields.json"
"""Per provider, the credentials its form asks for and whether ``api_key`` is required."""
OPENAI_LIKE_PROVIDERS = "llms/openai_like/providers.json"
"""The providers litellm configures from data: base URL, ``api_key_env``, ``api_base_env``."""


@functools.cache
def litellm_folder() -> Path | None:
    """The folder of the installed litellm package; None when it is not installed."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def litellm_json(relative: str) -> Any:
    """The parsed JSON file at ``relative`` inside litellm's package; None when it is missing or unreadable."""
    folder = litellm_folder()
    if folder is None:
        return None
    try:
        return json.loads((folder / relative).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
