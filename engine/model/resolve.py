"""Decide which model to talk to: flag, environment, settings, else a local OpenAI-compatible server."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor

from msgspec import Struct

from engine.config.settings import LayeredSettings
from engine.errors import NoModelError
from engine.model.model_check import check_api_base
from engine.model.providers import required_key_env
from engine.records import hiding

LOCAL_SERVERS: tuple[tuple[str, str], ...] = (
    ("Ollama", "http://127.0.0.1:11434/v1"),
    ("LM Studio", "http://127.0.0.1:1234/v1"),
    ("llama.cpp", "http://127.0.0.1:8080/v1"),
)
PROBE_TIMEOUT_S = 0.4
NO_KEY = "sk-no-key-needed"

NO_MODEL_HELP = """no model is configured and no local model server was found.
Pick one of:
  hive run -m openai/gpt-4o "..."                 with OPENAI_API_KEY set
  export HIVE_MODEL=anthropic/claude-sonnet-4-5     with ANTHROPIC_API_KEY set
  ollama serve && ollama pull qwen2.5-coder         hive finds Ollama, LM Studio or llama.cpp on their default ports
  model: openai/gpt-4o                              in .ironhive/settings.yaml (project) or the user settings file"""


class ModelChoice(Struct, frozen=True, kw_only=True):
    """The model to use, where to reach it, and where that choice came from."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    source: str = ""

    __repr__, __rich_repr__ = hiding("api_key")


def resolve_model(
    *,
    flag_model: str | None,
    flag_api_base: str | None,
    flag_api_key: str | None,
    settings: LayeredSettings,
) -> ModelChoice:
    """The model by precedence flag > env > project > user settings > local server; ``UserError`` if none."""
    api_base, api_base_source = _api_base(flag_api_base, settings)
    check_api_base(api_base, api_base_source)
    api_key = flag_api_key or os.environ.get("HIVE_API_KEY") or _key_from_settings(settings)
    for model, source in (
        (flag_model, "--model"),
        (os.environ.get("HIVE_MODEL"), "HIVE_MODEL"),
        (settings.project.model, "project settings"),
        (settings.user.model, "user settings"),
    ):
        if model:
            if api_base and not api_key and required_key_env(model, api_base) is None:
                api_key = NO_KEY
            return ModelChoice(model=model, api_base=api_base, api_key=api_key, source=source)
    local = find_local_server()
    if local is None:
        raise NoModelError(NO_MODEL_HELP)
    return local


def _api_base(flag_api_base: str | None, settings: LayeredSettings) -> tuple[str | None, str]:
    """The API base and the setting it came from."""
    for value, source in (
        (flag_api_base, "--api-base"),
        (os.environ.get("HIVE_API_BASE"), "HIVE_API_BASE"),
        (settings.project.api_base, "api_base in the project settings"),
        (settings.user.api_base, "api_base in the user settings"),
    ):
        if value:
            return value, source
    return None, ""


def _key_from_settings(settings: LayeredSettings) -> str | None:
    name = settings.get("api_key_env")
    return os.environ.get(name) if name else None


def local_server_candidates() -> tuple[tuple[str, str], ...]:
    """Servers to probe: ``HIVE_LOCAL_SERVERS`` (comma-separated base URLs, empty for none) or the defaults."""
    configured = os.environ.get("HIVE_LOCAL_SERVERS")
    if configured is None:
        return LOCAL_SERVERS
    return tuple((url, url) for url in (u.strip().rstrip("/") for u in configured.split(",")) if url)


def find_local_server() -> ModelChoice | None:
    """The first candidate server that answers ``GET /models`` with at least one model."""
    candidates = local_server_candidates()
    if not candidates:
        return None
    with ThreadPoolExecutor(max_workers=len(candidates)) as pool:
        answers = list(pool.map(lambda c: _first_model(c[1]), candidates))
    for (name, base), model in zip(candidates, answers, strict=True):
        if model:
            return ModelChoice(model=f"openai/{model}", api_base=base, api_key=NO_KEY, source=f"local server ({name})")
    return None


def _first_model(base_url: str) -> str | None:
    import urllib.request  # only when no model is configured and local servers are probed

    try:
        # No proxies: these are loopback addresses.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(f"{base_url}/models", timeout=PROBE_TIMEOUT_S) as response:
            data = json.load(response)
    except (OSError, ValueError):
        return None
    models = data.get("data") if isinstance(data, dict) else None
    if isinstance(models, list) and models and isinstance(models[0], dict):
        model_id = models[0].get("id")
        return str(model_id) if model_id else None
    return None
