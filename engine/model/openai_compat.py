"""A model client for OpenAI's chat-completions protocol, straight over httpx: no litellm, no OpenAI SDK.

It yields what ``LiteLLMClient`` yields (the same stream items, replies, usage, error categories and
retries) for OpenAI and every OpenAI-compatible server, at a fraction of the start-up cost. The
response fills a ``WireRecord`` as it is read, so a broken reply is judged exactly as on the
litellm path, and usage is what the server sent.
"""

from __future__ import annotations

from typing import Any

from engine.model import dialect_memory
from engine.model.assembly import StreamAssembler, whole_reply_as_chunk
from engine.model.dialect import WireShape, lesson_from, lesson_notice, sendable_messages, shape_for
from engine.model.direct_client import DirectClient, EventFeeder
from engine.model.http_errors import HttpStatusError, StreamErrorEvent
from engine.model.pricing import priced
from engine.model.types import ModelReply, ModelRequest, StreamItem
from engine.model.usage import reported_usage
from engine.model.wire_record import WireRecord

_PASSED_OPTIONS = ("temperature", "max_tokens", "reasoning_effort")
_TOOL_OPTIONS = ("tool_choice", "parallel_tool_calls")


class OpenAICompatClient(DirectClient):
    """A ``ModelClient`` for ``POST {base}/chat/completions``."""

    def url(self) -> str:
        return f"{self.endpoint.base_url.rstrip('/')}/chat/completions"

    def body(self, request: ModelRequest, shape: WireShape) -> dict[str, Any]:
        options = request.options
        body: dict[str, Any] = {"model": self.endpoint.model_name, "messages": sendable_messages(request.messages)}
        body["stream"] = shape.streamed
        if shape.asks_usage:
            body["stream_options"] = {"include_usage": True}
        if request.tools:
            body["tools"] = list(request.tools)
            body["tool_choice"] = "auto"  # some servers (llama-cpp-python's function calling) drop tools without it
        names = _PASSED_OPTIONS + (_TOOL_OPTIONS if request.tools else ())
        body.update({name: value for name in names if (value := getattr(options, name)) is not None})
        body.update(dict(options.extra))
        return body

    def shape_for(self, request: ModelRequest) -> WireShape:
        facts = dialect_memory.facts_for(self.endpoint.base_url, self.model)
        return shape_for(streaming=self.settings.streaming, has_tools=bool(request.tools), facts=facts)

    def streams_empty_with_tools(self, request: ModelRequest) -> None:
        if request.tools:  # streamed: an empty 200; unstreamed: a whole reply. So it cannot stream them.
            dialect_memory.learn(self.endpoint.base_url, self.model, "no_streaming_with_tools")

    def reshape(
        self, refusal: HttpStatusError, request: ModelRequest, shape: WireShape
    ) -> tuple[WireShape, str] | None:
        lesson = lesson_from(refusal.message, shape, has_tools=bool(request.tools))
        if lesson is None:
            return None
        dialect_memory.learn(self.endpoint.base_url, self.model, lesson)
        reshaped = self.shape_for(request)
        if reshaped == shape:
            return None
        return reshaped, lesson_notice(lesson, server=self.endpoint.base_url, model=self.model)

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"} if key else {}

    def whole_reply(self, assembler: StreamAssembler, body: Any) -> list[StreamItem]:
        return assembler.feed(whole_reply_as_chunk(body))

    def event_feeder(self, assembler: StreamAssembler, record: WireRecord) -> EventFeeder:
        def feed(event: dict[str, Any]) -> list[StreamItem]:
            if isinstance(event.get("error"), dict | str):
                raise StreamErrorEvent(event["error"])
            return assembler.feed(event)

        return feed

    def reply(self, assembler: StreamAssembler, record: WireRecord) -> ModelReply:
        if record.is_event_stream:
            usage = reported_usage(None, record)
        else:
            usage = reported_usage(assembler.usage_source, None)
        reply = assembler.reply(usage)
        return priced(reply, self.model) if self.endpoint.priced else reply
