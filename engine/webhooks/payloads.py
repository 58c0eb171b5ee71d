"""What a webhook delivery says: one JSON object per event, with no prompt text, arguments or results.

Every body has ``type``, ``schema_version``, a ``delivery_id`` (the same on every attempt, so a receiver
can drop duplicates), the ``session_id``, ``created_at`` (ISO 8601, UTC) and ``data``.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from msgspec import Struct

from engine.events import ApprovalRequested, ErrorEvent, Event, TurnCompleted
from engine.webhooks.options import WebhookEventType

SCHEMA_VERSION = 1


class Payload(Struct, frozen=True, kw_only=True):
    """One notification, ready to send to every endpoint that wants its type."""

    type: WebhookEventType
    delivery_id: str
    body: bytes


def payload(kind: WebhookEventType, session_id: str | None, data: dict[str, Any]) -> Payload:
    """The notification of ``kind`` with ``data``."""
    delivery_id = uuid.uuid4().hex
    record = {
        "type": kind,
        "schema_version": SCHEMA_VERSION,
        "delivery_id": delivery_id,
        "session_id": session_id,
        "created_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "data": data,
    }
    body = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
    return Payload(type=kind, delivery_id=delivery_id, body=body)


def event_payload(event: Event, session_id: str | None) -> Payload | None:
    """The notification for a run's event, or None for events webhooks are not sent for."""
    match event:
        case TurnCompleted(turn=turn, agent=agent):
            calls = [{"name": o.call.name, "success": o.success} for o in turn.outcomes]
            data = {
                "agent": agent,
                "index": turn.index,
                "model": turn.model,
                "finish_reason": turn.finish_reason,
                "tool_calls": calls,
                "pending_calls": [c.name for c in turn.pending_calls],
                "usage": turn.usage.to_dict(),
            }
            return payload("turn_completed", session_id, data)
        case ApprovalRequested(call=call, summary=summary, reason=reason, agent=agent, warning=warning):
            data = {"agent": agent, "call_id": call.id, "tool": call.name, "summary": summary, "reason": reason}
            return payload("approval_requested", session_id, data | {"warning": warning} if warning else data)
        case ErrorEvent(category=category, message=message, fix=fix, agent=agent):
            data = {"agent": agent, "category": category, "message": message, "fix": fix}
            return payload("error", session_id, data)
        case _:
            return None
