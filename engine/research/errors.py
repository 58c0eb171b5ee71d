"""The errors of a research run that a host shows as one line (and their exit status)."""

from __future__ import annotations

from engine.errors import UserError
from engine.research.sources import SearchError


class ProviderConfigError(SearchError):
    """A search provider cannot be used as configured (unknown, a key or a URL missing, a folder missing)."""


class ResearchUnavailable(UserError):
    """No search provider could answer the first search (unreachable, refused, misconfigured): exit status 2."""
