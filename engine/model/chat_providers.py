"""hive's chat-completions client in the dialects of Gemini, Mistral and Azure OpenAI.

All three speak OpenAI's chat-completions protocol (``OpenAICompatClient``); each differs in a few points:

- Gemini (its OpenAI-compatible endpoint): tool calls arrive with an empty id (hive gives them one) and,
  from thinking models, ``extra_content.google.thought_signature``, which Gemini 3 requires back on the
  same call in the next request (else HTTP 400). The reply keeps each call's ``extra_content`` under
  ``TOOL_CALL_EXTRAS`` and the next request puts it back on the call.
- Mistral: a replayed tool call id must be 9 letters or digits (ids from another model are rewritten,
  the same way in the assistant turn and its tool results); ``stream_options`` is not part of its API (its
  stream's last chunk carries the usage unasked).
- Azure OpenAI: ``{base}/openai/deployments/{deployment}/chat/completions?api-version=...`` (or
  ``{base}/openai/v1/chat/completions``), the key in an ``api-key`` header instead of a bearer token.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import quote, urlsplit
from weakref import WeakKeyDictionary

from msgspec.structs import replace

from engine.model.assembly import StreamAssembler, field_of
from engine.model.client_settings import ModelSettings
from engine.model.dialect import TOOL_CALL_EXTRAS, WireShape
from engine.model.direct_client import EventFeeder
from engine.model.openai_compat import OpenAICompatClient
from engine.model.providers import Endpoint
from engine.model.types import Message, ModelReply, ModelRequest, StreamItem
from engine.model.wire_record import WireRecord


def chat_client_for(settings: ModelSettings, endpoint: Endpoint) -> OpenAICompatClient:
    """hive's chat-completions client in ``endpoint``'s provider dialect."""
    dialects: dict[str, type[OpenAICompatClient]] = {
        "gemini": GeminiClient,
        "mistral": MistralClient,
        "azure": AzureClient,
    }
    return dialects.get(endpoint.provider, OpenAICompatClient)(settings, endpoint)


class GeminiClient(OpenAICompatClient):
    """Gemini's OpenAI-compatible endpoint: thought signatures on tool calls go back with them."""

    def __init__(self, settings: ModelSettings, endpoint: Endpoint) -> None:
        super().__init__(settings, endpoint)
        self._extras: WeakKeyDictionary[StreamAssembler, _ExtrasByIndex] = WeakKeyDictionary()
        """Per reply being assembled (calls may run at once on one client)."""

    def body(self, request: ModelRequest, shape: WireShape) -> dict[str, Any]:
        return super().body(replace(request, messages=tuple(_with_call_extras(request.messages))), shape)

    def whole_reply(self, assembler: StreamAssembler, body: Any) -> list[StreamItem]:
        extras = self._extras[assembler] = _ExtrasByIndex()
        for choice in field_of(body, "choices") or ():
            for index, call in enumerate(field_of(field_of(choice, "message"), "tool_calls") or ()):
                extras.take(index, call)
        return super().whole_reply(assembler, body)

    def event_feeder(self, assembler: StreamAssembler, record: WireRecord) -> EventFeeder:
        extras = self._extras[assembler] = _ExtrasByIndex()
        feed_chunk = super().event_feeder(assembler, record)

        def feed(event: dict[str, Any]) -> list[StreamItem]:
            for choice in field_of(event, "choices") or ():
                for fragment in field_of(field_of(choice, "delta"), "tool_calls") or ():
                    extras.take(field_of(fragment, "index") or 0, fragment)
            return feed_chunk(event)

        return feed

    def reply(self, assembler: StreamAssembler, record: WireRecord) -> ModelReply:
        reply = super().reply(assembler, record)
        extras = self._extras.pop(assembler, None)
        by_id = extras.by_call_id(reply) if extras is not None else {}
        if not by_id:
            return reply
        return replace(reply, provider_fields=(*reply.provider_fields, (TOOL_CALL_EXTRAS, by_id)))


class _ExtrasByIndex:
    """The ``extra_content`` each streamed tool call carried, by the call's index in the reply."""

    def __init__(self) -> None:
        self._by_index: dict[int, Any] = {}

    def take(self, index: int, fragment: Any) -> None:
        extra = field_of(fragment, "extra_content")
        if extra:
            self._by_index[index] = extra

    def by_call_id(self, reply: ModelReply) -> dict[str, Any]:
        """The extras by the ids the reply's calls got (calls are in index order)."""
        if not self._by_index:
            return {}
        indexes = sorted(self._by_index)
        return {
            call.id: self._by_index[index]
            for index, call in zip(indexes, reply.tool_calls, strict=False)
            if index in self._by_index
        }


def _with_call_extras(messages: tuple[Message, ...]) -> list[Message]:
    """Assistant turns with each call's ``extra_content`` back on the call (and the carrying field removed)."""
    sent: list[Message] = []
    for message in messages:
        extras = message.get(TOOL_CALL_EXTRAS)
        if not isinstance(extras, dict):
            sent.append(message)
            continue
        calls = [
            {**call, "extra_content": extras[call.get("id")]} if call.get("id") in extras else call
            for call in message.get("tool_calls") or ()
        ]
        rest = {k: v for k, v in message.items() if k != TOOL_CALL_EXTRAS}
        sent.append({**rest, "tool_calls": calls} if calls else rest)
    return sent


class MistralClient(OpenAICompatClient):
    """Mistral's API: tool call ids of 9 letters or digits; usage comes unasked at the stream's end."""

    def shape_for(self, request: ModelRequest) -> WireShape:
        return replace(super().shape_for(request), asks_usage=False)

    def body(self, request: ModelRequest, shape: WireShape) -> dict[str, Any]:
        return super().body(replace(request, messages=tuple(mistral_call_ids(request.messages))), shape)


_MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def mistral_id(call_id: str) -> str:
    """``call_id`` as Mistral accepts it: itself when it is 9 letters or digits, else 9 derived from it."""
    if _MISTRAL_ID.fullmatch(call_id):
        return call_id
    number = int.from_bytes(hashlib.sha256(call_id.encode()).digest()[:8], "big")
    return "".join(_ALPHABET[(number >> (6 * i)) % len(_ALPHABET)] for i in range(9))


def mistral_call_ids(messages: tuple[Message, ...]) -> list[Message]:
    """The messages with every tool call id (in assistant turns and tool results alike) as Mistral accepts it."""
    sent: list[Message] = []
    for message in messages:
        if message.get("tool_calls"):
            calls = [{**call, "id": mistral_id(str(call.get("id") or ""))} for call in message["tool_calls"]]
            message = {**message, "tool_calls": calls}
        elif message.get("role") == "tool" and isinstance(message.get("tool_call_id"), str):
            message = {**message, "tool_call_id": mistral_id(message["tool_call_id"])}
        sent.append(message)
    return sent


class AzureClient(OpenAICompatClient):
    """Azure OpenAI: the deployment's URL with ``api-version``, the key in ``api-key``."""

    def url(self) -> str:
        return azure_chat_url(self.endpoint.base_url, self.endpoint.model_name, self.endpoint.api_version)

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"api-key": key} if key else {}


def azure_chat_url(base_url: str, deployment: str, api_version: str | None) -> str:
    """The chat-completions URL of ``deployment`` at an Azure OpenAI resource.

    ``base_url`` is the resource (``https://NAME.openai.azure.com``) or its v1 API (``.../openai/v1``), where
    the deployment is named in the body and no version is needed.
    """
    base = base_url.rstrip("/")
    path = urlsplit(base).path
    if path.endswith("/openai/v1"):
        url = f"{base}/chat/completions"
    else:
        base = base.removesuffix("/openai") if path.endswith("/openai") else base
        url = f"{base}/openai/deployments/{quote(deployment, safe='')}/chat/completions"
    return f"{url}?api-version={quote(api_version, safe='')}" if api_version else url
