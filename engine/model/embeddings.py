"""Text embeddings through litellm, for memory and tool retrieval when an embedding model is configured.

Nothing imports this module unless a setting names an embedding model, and it imports litellm only
when the first texts are embedded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from engine.errors import UserError
from engine.model import litellm_import

Embedder = Callable[[Sequence[str]], list[list[float]]]
"""Turns texts into vectors, one per text, in order."""


def litellm_embedder(model: str, *, setting: str, api_base: str | None = None, api_key: str | None = None) -> Embedder:
    """An embedder calling ``litellm.embedding`` with ``model``; ``setting`` names where the model was configured.

    ``api_base`` and ``api_key`` are the session's (``--api-base``, ``--api-key`` and their settings): the
    embeddings go to the server the chat goes to, with its key; None leaves them to litellm's variables.
    """
    endpoint = {name: value for name, value in (("api_base", api_base), ("api_key", api_key)) if value}

    def embed(texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            response = litellm_import.load().embedding(model=model, input=list(texts), **endpoint)
        except Exception as error:
            raise UserError(f"embedding model {model!r} (setting {setting}) failed: {error}") from error
        return [list(item["embedding"]) for item in response.data]

    return embed


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine similarity of two vectors (0.0 when either is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
