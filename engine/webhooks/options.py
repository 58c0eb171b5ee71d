"""The ``webhooks`` section of the settings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class WebhookEndpoint(BaseModel):
    """One receiver of event notifications."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str = Field(pattern=r"^https?://\S+$")
    secret_env: str | None = None
    """Name of the environment variable holding the signing secret (secrets never belong in files)."""
    events: list[str] | None = None
    """Event types to send; every type when unset."""


class WebhookOptions(BaseModel):
    """Where events are sent, and how hard hive tries."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    endpoints: list[WebhookEndpoint] = Field(default_factory=list)
    timeout: float = Field(default=10.0, gt=0)
    max_attempts: int = Field(default=3, gt=0)
