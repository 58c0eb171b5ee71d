"""The embedding retriever with a deterministic embedder: cosine scores, tools embedded once, keywords on failure."""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.errors import UserError
from engine.retrieval.embedding import EmbeddingRetriever
from engine.tools.base import ToolSpec

WORDS = ("issue", "weather", "merge")


class WordCounts:
    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        self.asked.append(list(texts))
        return [[float(text.count(word)) for word in WORDS] for text in texts]


def spec(name: str, description: str) -> ToolSpec:
    return ToolSpec(name=name, description=description, parameters={}, kind="mcp")


ISSUES = spec("mcp__gh__list_issues", "List the issue tracker")  # text counts: issue 2, weather 0, merge 0
WEATHER = spec("mcp__w__weather", "weather and merge")  # issue 0, weather 2, merge 1


def test_tools_score_by_cosine_similarity_and_are_embedded_once() -> None:
    embed = WordCounts()
    retriever = EmbeddingRetriever("counts", embed)
    assert retriever.scores("weather", [ISSUES, WEATHER]) == {ISSUES.name: 0.0, WEATHER.name: 2 / math.sqrt(5)}
    assert retriever.scores("an issue", [ISSUES, WEATHER]) == {ISSUES.name: 1.0, WEATHER.name: 0.0}
    assert embed.asked == [[f"{ISSUES.name}: {ISSUES.description}", f"{WEATHER.name}: {WEATHER.description}"],
                           ["weather"], ["an issue"]]  # fmt: skip


def failing(texts: Sequence[str]) -> list[list[float]]:
    raise UserError("embedding model 'x' (setting tool_retrieval.embedding_model) failed: unreachable")


def test_a_failing_embedding_model_falls_back_to_keyword_scores() -> None:
    retriever = EmbeddingRetriever("x", failing)
    assert retriever.scores("list issues", [ISSUES]) == {ISSUES.name: 0.75 * (2 / 3) + 0.25 * (1 / 3)}
    assert retriever.failure is not None and "tool_retrieval.embedding_model" in retriever.failure
