"""The ``webhooks`` section of the settings."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from msgspec import Meta

from engine.config.validation import StrictRecord

_URL = re.compile(r"^https?://\S+$")

WebhookEventType = Literal["session_started", "session_finished", "turn_completed", "approval_requested", "error"]
"""What a webhook can be sent for."""


class WebhookEndpoint(StrictRecord, frozen=True):
    """One receiver of event notifications."""

    url: str
    """Where the notifications are POSTed (http or https)."""
    secret_env: str | None = None
    """Name of the environment variable holding the signing secret (secrets never belong in files).
    Unset: deliveries carry no signature. Set, the variable must hold a secret when the session opens."""
    events: tuple[WebhookEventType, ...] | None = None
    """Event types to send; every type when unset."""

    def __post_init__(self) -> None:
        if not _URL.match(self.url):
            raise ValueError(
                f"{self.url!r} is not a URL: give one that starts with http:// or https://, without spaces"
            )


class WebhookOptions(StrictRecord, frozen=True):
    """Where events are sent, and how hard hive tries."""

    endpoints: tuple[WebhookEndpoint, ...] = ()
    """The receivers; none, and nothing is sent."""
    timeout: Annotated[float, Meta(gt=0)] = 10.0
    """Seconds one delivery attempt may take."""
    max_attempts: Annotated[int, Meta(gt=0)] = 3
    """Attempts per delivery (with backoff between them) before it is given up and logged."""
    drain_timeout: Annotated[float, Meta(ge=0)] = 2.0
    """Seconds the session's close waits for deliveries still queued; what is left then is dropped and logged."""
