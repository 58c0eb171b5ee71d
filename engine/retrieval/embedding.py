"""The embedding retriever: tools scored by the cosine similarity of their text to the request's."""

from __future__ import annotations

from collections.abc import Sequence

from engine.errors import UserError
from engine.model.embeddings import Embedder, cosine, litellm_embedder
from engine.retrieval.keywords import KeywordRetriever
from engine.tools.base import ToolSpec


def tool_text(spec: ToolSpec) -> str:
    """What is embedded of a tool: its name and description."""
    return f"{spec.name}: {spec.description}"


class EmbeddingRetriever:
    """Embeds each tool once (cached by its text) and the query on every call.

    The model is called from ``specs()``, which is synchronous: a request waits for its embedding.
    When the embedding model fails, that request is scored by keywords instead (a failing optional
    model must not stop the session).
    """

    def __init__(self, model: str, embedder: Embedder | None = None) -> None:
        self._embed = embedder or litellm_embedder(model, setting="tool_retrieval.embedding_model")
        self._vectors: dict[str, list[float]] = {}
        self._fallback = KeywordRetriever()
        self.failure: str | None = None
        """Why the latest request was scored by keywords, if it was."""

    def scores(self, query: str, specs: Sequence[ToolSpec]) -> dict[str, float]:
        """Each tool's cosine similarity to ``query`` (all 0 for an empty query)."""
        if not query.strip():
            return {spec.name: 0.0 for spec in specs}
        try:
            scores = self._similarities(query, specs)
        except UserError as error:
            self.failure = str(error)
            return self._fallback.scores(query, specs)
        self.failure = None
        return scores

    def _similarities(self, query: str, specs: Sequence[ToolSpec]) -> dict[str, float]:
        missing = [text for text in dict.fromkeys(tool_text(s) for s in specs) if text not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._embed(missing), strict=True))
        [wanted] = self._embed([query])
        return {spec.name: cosine(wanted, self._vectors[tool_text(spec)]) for spec in specs}
