"""One provider made of several: the first answers, and the next takes over when it fails."""

from __future__ import annotations

from collections.abc import Sequence

from engine.research.sources import SearchError, SearchHit, SearchProvider


class FallbackSearch:
    """Tries its providers in order for each query; a ``SearchError`` hands the query to the next.

    A provider that failed for good (not retryable: a refused key, a broken answer) is skipped for the
    rest of the run, so a wrong key costs one call, not one per query. The hits keep the name of the
    provider that found them; ``name`` is the first provider's. When every provider fails, the
    ``SearchError`` names them all and is retryable if any of their errors was.
    """

    def __init__(self, providers: Sequence[SearchProvider]) -> None:
        if not providers:
            raise ValueError("FallbackSearch needs at least one provider")
        self.providers = list(providers)
        self.name = self.providers[0].name
        self._given_up: set[int] = set()

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """The hits of the first provider that answers; raises ``SearchError`` when none does."""
        errors: list[SearchError] = []
        for index, provider in enumerate(self.providers):
            if index in self._given_up:
                continue
            try:
                return await provider.search(query, limit)
            except SearchError as exc:
                errors.append(exc)
                if not exc.retryable:
                    self._given_up.add(index)
        raise self._all_failed(errors)

    def _all_failed(self, errors: list[SearchError]) -> SearchError:
        if not errors:
            return SearchError(self.name, "every provider failed earlier in this run")
        names = "+".join(provider.name for provider in self.providers)
        message = "; ".join(str(error) for error in errors)
        retryable = any(error.retryable for error in errors)
        return SearchError(names, message, retryable=retryable, unreachable=all(error.unreachable for error in errors))
