"""The ``delegation`` and ``advisor`` sections of the settings."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from engine.config.validation import StrictRecord


class DelegationOptions(StrictRecord, frozen=True):
    """Bounds on agents that call agents."""

    max_depth: Annotated[int, Meta(ge=0)] = 2
    """How deep delegation may nest (0: no sub-agents)."""
    max_concurrency: Annotated[int, Meta(gt=0)] = 4
    """Delegated runs at once."""
    max_tool_turns: Annotated[int, Meta(gt=0)] = 25
    """Model turns a delegated run may take unless its agent says otherwise; it comes back marked partial."""
    max_output_characters: Annotated[int, Meta(gt=0)] = 20_000
    """The longest answer a delegated run hands back to its parent."""


class AdvisorOptions(StrictRecord, frozen=True):
    """The advisor tool: a stronger model that reviews the conversation."""

    model: str | None = None
    """The advisor's model; no advisor is offered when unset."""
    max_calls: Annotated[int, Meta(ge=0)] = 5
    """Advisor calls per session."""
