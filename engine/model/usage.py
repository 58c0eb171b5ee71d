"""Read token counts out of a provider's usage object, keeping "not reported" apart from zero."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from engine.events import Usage
from engine.model.assembly import field_of
from engine.model.types import ModelReply
from engine.model.wire_record import WireRecord


def reported_usage(parsed: Any, record: WireRecord | None) -> Usage:
    """The usage the server reported: as it sent it when the stream was recorded, else as litellm parsed it.

    litellm fills what a server did not send with zeros; a reply billed at zero prompt tokens was
    not measured by anyone, so it counts as not reported.
    """
    if record is not None and record.is_event_stream:
        return usage_from(record.usage)
    usage = usage_from(parsed)
    if usage.prompt_tokens == 0 and not usage.completion_tokens:
        return Usage(calls=1)
    return usage


def usage_from(raw: Any) -> Usage:
    """A ``Usage`` (without cost) from an OpenAI-style usage object as litellm returns it."""
    if raw is None:
        return Usage(calls=1)
    prompt_details = field_of(raw, "prompt_tokens_details")
    completion_details = field_of(raw, "completion_tokens_details")
    cached = _first_int(
        field_of(prompt_details, "cached_tokens"),
        field_of(raw, "cache_read_input_tokens"),
        field_of(raw, "prompt_cache_hit_tokens"),
    )
    cache_write = _first_int(
        field_of(prompt_details, "cache_creation_tokens"),
        field_of(raw, "cache_creation_input_tokens"),
    )
    return Usage(
        prompt_tokens=_int(field_of(raw, "prompt_tokens")),
        completion_tokens=_int(field_of(raw, "completion_tokens")),
        cached_read_tokens=cached,
        cache_write_tokens=cache_write,
        reasoning_tokens=_int(field_of(completion_details, "reasoning_tokens")),
        calls=1,
    )


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _first_int(*values: Any) -> int | None:
    for value in values:
        if (number := _int(value)) is not None:
            return number
    return None


def without_unreported_reasoning(reply: ModelReply) -> ModelReply:
    """``reply`` with a reasoning count of 0 made None when the model visibly reasoned (the provider did not say)."""
    usage = reply.usage
    if usage.reasoning_tokens == 0 and (reply.reasoning or dict(reply.provider_fields).get("thinking_blocks")):
        return replace(reply, usage=replace(usage, reasoning_tokens=None))
    return reply
