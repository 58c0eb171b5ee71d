"""The configured endpoints with their secrets, read from the environment when the session starts.

A ``secret_env`` that names a variable which is unset or empty is a configuration error (exit status 2),
not a warning: notifications a receiver would reject as unsigned are worse than a clear stop.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from msgspec import Struct

from engine.errors import ConfigError
from engine.records import hiding
from engine.webhooks.options import WebhookEndpoint, WebhookEventType, WebhookOptions


class Target(Struct, frozen=True, kw_only=True):
    """An endpoint with its secret read from the environment."""

    url: str
    secret: str | None = None
    events: frozenset[WebhookEventType] | None = None
    """The types it wants; None for all."""

    __repr__, __rich_repr__ = hiding("secret")

    def wants(self, kind: WebhookEventType) -> bool:
        """Whether this endpoint is sent notifications of ``kind``."""
        return self.events is None or kind in self.events

    @property
    def where(self) -> str:
        """The endpoint as logs name it: scheme, host and port, never the path or the query."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def targets_of(options: WebhookOptions, environ: Mapping[str, str] | None = None) -> list[Target]:
    """The configured endpoints with their secrets; ``ConfigError`` when a named secret variable is unset or empty."""
    env = os.environ if environ is None else environ
    return [_target(number, endpoint, env) for number, endpoint in enumerate(options.endpoints)]


def _target(number: int, endpoint: WebhookEndpoint, env: Mapping[str, str]) -> Target:
    secret = None
    if endpoint.secret_env is not None:
        secret = env.get(endpoint.secret_env, "")
        if not secret.strip():
            state = "empty" if endpoint.secret_env in env else "not set"
            raise ConfigError(
                f"webhooks.endpoints.{number}.secret_env names {endpoint.secret_env}, which is {state}: "
                f"set it to the signing secret, or remove secret_env to send unsigned notifications"
            )
    events = frozenset(endpoint.events) if endpoint.events is not None else None
    return Target(url=endpoint.url, secret=secret, events=events)
