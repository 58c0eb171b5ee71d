"""Ask a local or self-hosted server what context window it serves a model with.

Each kind of server says it in its own place; hive asks all of them at once, with a short timeout,
and takes the first answer in this order:

- llama.cpp: ``GET /props`` → ``default_generation_settings.n_ctx`` (older builds: ``n_ctx``);
- LM Studio: ``GET /api/v0/models`` → the model's ``loaded_context_length`` (else ``max_context_length``);
- Ollama: ``POST /api/show`` → the ``num_ctx`` parameter, else Ollama's default, at most the model's
  ``<arch>.context_length`` (Ollama serves its default whatever the model could take);
- vLLM and others: ``GET /v1/models`` → the model's ``max_model_len``.

Only for a server hive was pointed at that is not one of the big hosted providers: they never say,
and a question costs them a request. The standard library's HTTP client, with no proxy: a local
server is asked directly.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from msgspec import Struct

from engine.model.providers import ANTHROPIC, OPENAI_COMPATIBLE

PROBE_TIMEOUT_S = 1.0
OLLAMA_DEFAULT_WINDOW = 4_096
"""What Ollama serves when ``num_ctx`` is not set (2,048 before version 0.6)."""
LOCAL_PREFIXES = ("openai/", "ollama/", "ollama_chat/", "lm_studio/", "hosted_vllm/", "llamafile/")
_HOSTED = frozenset(
    host
    for provider in (*OPENAI_COMPATIBLE.values(), ANTHROPIC)
    if provider.base_url and (host := urlsplit(provider.base_url).hostname) and host != "localhost"
)


class ServedWindow(Struct, frozen=True, kw_only=True):
    """The window a server said it serves, where it said it, and what to know about it."""

    tokens: int
    source: str
    note: str | None = None


class Probe(Struct, frozen=True, kw_only=True):
    """What asking a server gave: whether anything answered, and the window if one was said."""

    answered: bool
    window: ServedWindow | None = None


def server_to_ask(model: str, api_base: str | None) -> str | None:
    """The base URL to ask about ``model``'s window, or None for a hosted provider or a model not served so."""
    if not model.startswith(LOCAL_PREFIXES):
        return None
    base = api_base or _default_local_base(model)
    if not base:
        return None
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.hostname in _HOSTED:
        return None
    return base.rstrip("/")


def _default_local_base(model: str) -> str | None:
    provider = OPENAI_COMPATIBLE.get(model.split("/", 1)[0])
    if provider is None or provider.base_url is None or provider.priced:
        return None
    return provider.base_url


def ask_window(api_base: str, model_name: str, timeout_s: float = PROBE_TIMEOUT_S) -> Probe:
    """Ask the server at ``api_base`` (its OpenAI-compatible base URL) what window it serves ``model_name`` with."""
    root = server_root(api_base)
    questions: list[Callable[[], tuple[bool, ServedWindow | None]]] = [
        lambda: _llama_cpp(root, timeout_s),
        lambda: _lm_studio(root, model_name, timeout_s),
        lambda: _ollama(root, model_name, timeout_s),
        lambda: _openai_models(api_base, model_name, timeout_s),
    ]
    with ThreadPoolExecutor(max_workers=len(questions)) as pool:
        answers = list(pool.map(lambda ask: ask(), questions))
    window = next((w for _, w in answers if w is not None), None)
    return Probe(answered=any(answered for answered, _ in answers), window=window)


def server_root(api_base: str) -> str:
    """The server's own address: the base URL without its ``/v1``."""
    base = api_base.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def _llama_cpp(root: str, timeout_s: float) -> tuple[bool, ServedWindow | None]:
    answered, body = _json(f"{root}/props", None, timeout_s)
    if not isinstance(body, dict):
        return answered, None
    settings = body.get("default_generation_settings")
    tokens = _positive(settings.get("n_ctx") if isinstance(settings, dict) else None) or _positive(body.get("n_ctx"))
    return answered, ServedWindow(tokens=tokens, source="llama.cpp /props") if tokens else None


def _lm_studio(root: str, model_name: str, timeout_s: float) -> tuple[bool, ServedWindow | None]:
    answered, body = _json(f"{root}/api/v0/models", None, timeout_s)
    entry = _listed(body, model_name)
    if entry is None:
        return answered, None
    loaded = _positive(entry.get("loaded_context_length"))
    if loaded:
        return answered, ServedWindow(tokens=loaded, source="LM Studio /api/v0/models (loaded)")
    largest = _positive(entry.get("max_context_length"))
    note = "the model is not loaded: this is the most it can take; LM Studio loads it with the context length you set"
    return answered, ServedWindow(tokens=largest, source="LM Studio /api/v0/models", note=note) if largest else None


def _ollama(root: str, model_name: str, timeout_s: float) -> tuple[bool, ServedWindow | None]:
    answered, body = _json(f"{root}/api/show", {"model": model_name}, timeout_s)
    if not isinstance(body, dict) or not isinstance(body.get("model_info"), dict):
        return answered, None
    info: dict[str, Any] = body["model_info"]
    trained = next((_positive(v) for k, v in info.items() if k.endswith(".context_length")), 0)
    num_ctx = _num_ctx(body.get("parameters"))
    if num_ctx:
        tokens, note = num_ctx, "num_ctx set for the model"
    else:
        tokens = OLLAMA_DEFAULT_WINDOW
        note = (
            f"num_ctx is not set: Ollama serves its default ({OLLAMA_DEFAULT_WINDOW:,}; 2,048 before 0.6) "
            "and cuts longer prompts without an error; set num_ctx for more"
        )
    if trained:
        tokens = min(tokens, trained)
    return answered, ServedWindow(tokens=tokens, source="Ollama /api/show", note=note)


def _num_ctx(parameters: object) -> int:
    """``num_ctx`` from Ollama's parameters text (``num_ctx 8192`` on a line of its own), or 0."""
    if not isinstance(parameters, str):
        return 0
    for line in parameters.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == "num_ctx" and words[1].isdigit():
            return int(words[1])
    return 0


def _openai_models(api_base: str, model_name: str, timeout_s: float) -> tuple[bool, ServedWindow | None]:
    answered, body = _json(f"{api_base.rstrip('/')}/models", None, timeout_s)
    entry = _listed(body, model_name)
    tokens = _positive(entry.get("max_model_len")) if entry is not None else 0
    return answered, ServedWindow(tokens=tokens, source="/v1/models max_model_len") if tokens else None


def _listed(body: object, model_name: str) -> dict[str, Any] | None:
    """The entry of a ``{"data": [...]}`` model list whose ``id`` is ``model_name``."""
    models = body.get("data") if isinstance(body, dict) else None
    for entry in models if isinstance(models, list) else ():
        if isinstance(entry, dict) and entry.get("id") == model_name:
            return entry
    return None


def _positive(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _json(url: str, payload: dict[str, Any] | None, timeout_s: float) -> tuple[bool, object]:
    """(whether the server answered at all, the JSON body of a 200 answer or None)."""
    data = json.dumps(payload).encode() if payload is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout_s) as response:
            return True, json.loads(response.read(1_000_000))
    except urllib.error.HTTPError:
        return True, None
    except (OSError, ValueError):
        return False, None
