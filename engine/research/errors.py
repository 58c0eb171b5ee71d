"""The errors of a research run that a host shows as one line (and their exit status)."""

from __future__ import annotations

import shlex

from engine.errors import UserError
from engine.research.sources import SearchError


class ProviderConfigError(SearchError):
    """A search provider cannot be used as configured (unknown, a key or a URL missing, a folder missing)."""


class ResearchUnavailable(UserError):
    """No search provider could answer the first search (unreachable, refused, misconfigured): exit status 2."""


class WebUnreachable(ResearchUnavailable):
    """Every search provider failed because the network could not be reached: exit status 2, with the offline way."""

    def __init__(self, reason: str, question: str) -> None:
        super().__init__(f"the web could not be reached ({reason}); {local_documents_hint(question)}")


def local_documents_hint(question: str) -> str:
    """The way to research ``question`` without the network."""
    return f"to research local documents instead: hive research --provider docs --docs DIR {shlex.quote(question)}"
