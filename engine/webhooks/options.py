"""The ``webhooks`` section of the settings."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

WebhookEventType = Literal["session_started", "session_finished", "turn_completed", "approval_requested", "error"]
"""What a webhook can be sent for."""


class WebhookEndpoint(BaseModel):
    """One receiver of event notifications."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    url: str = Field(pattern=r"^https?://\S+$")
    secret_env: str | None = None
    """Name of the environment variable holding the signing secret (secrets never belong in files).
    Unset: deliveries carry no signature. Set, the variable must hold a secret when the session opens."""
    events: list[WebhookEventType] | None = None
    """Event types to send; every type when unset."""


class WebhookOptions(BaseModel):
    """Where events are sent, and how hard hive tries."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    endpoints: list[WebhookEndpoint] = []  # pydantic copies it (default_factory=list costs a signature parse)
    timeout: float = Field(default=10.0, gt=0)
    """Seconds one delivery attempt may take."""
    max_attempts: int = Field(default=3, gt=0)
    """Attempts per delivery (with backoff between them) before it is given up and logged."""
    drain_timeout: float = Field(default=2.0, ge=0)
    """Seconds the session's close waits for deliveries still queued; what is left then is dropped and logged."""
