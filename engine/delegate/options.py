"""The ``delegation`` and ``advisor`` sections of the settings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DelegationOptions(BaseModel):
    """Bounds on agents that call agents."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    max_depth: int = Field(default=2, ge=0)
    """How deep delegation may nest (0: no sub-agents)."""
    max_concurrency: int = Field(default=4, gt=0)
    """Delegated runs at once."""
    max_tool_turns: int = Field(default=25, gt=0)
    """Model turns a delegated run may take unless its agent says otherwise; it comes back marked partial."""
    max_output_characters: int = Field(default=20_000, gt=0)
    """The longest answer a delegated run hands back to its parent."""


class AdvisorOptions(BaseModel):
    """The advisor tool: a stronger model that reviews the conversation."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    model: str | None = None
    """The advisor's model; no advisor is offered when unset."""
    max_calls: int = Field(default=5, ge=0)
    """Advisor calls per session."""
