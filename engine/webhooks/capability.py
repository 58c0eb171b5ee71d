"""Webhooks as a capability: the session's start and end, and every event of its stream, sent in the background."""

from __future__ import annotations

from engine.capabilities import Capability, SessionView
from engine.config.loader import SessionConfig
from engine.events import Event
from engine.webhooks.sender import WebhookSender


class Webhooks(Capability):
    """Hands the session's notifications to ``sender``, which only queues them."""

    def __init__(self, sender: WebhookSender) -> None:
        self.sender = sender

    async def start(self, session: SessionView) -> tuple[str, ...]:
        self.sender.start()
        data = {"model": session.model, "cwd": str(session.config.cwd), "mode": session.mode}
        self.sender.notify("session_started", session.id, data)
        return ()

    def observe(self, event: Event, session: SessionView) -> None:
        self.sender.send_event(event, session.id)

    async def stop(self, session: SessionView) -> None:
        """Send ``session_finished`` and give the deliveries still queued a short bound."""
        self.sender.notify("session_finished", session.id, {"usage": session.usage.to_dict()})
        await self.sender.close()


def webhooks_for(config: SessionConfig) -> Webhooks | None:
    """The webhooks of the configured endpoints (None for none); ``ConfigError`` for an unset secret variable."""
    if not config.webhooks.endpoints:
        return None
    return Webhooks(WebhookSender.from_options(config.webhooks))
