"""The dialect of an OpenAI-compatible server: what to send it, and what its refusals teach.

"OpenAI-compatible" servers (llama.cpp, llama-cpp-python, vLLM, Ollama, LM Studio) differ in small
ways that break an agent: some drop every tool unless ``tool_choice`` is sent, some reject
``"content": null`` beside ``tool_calls``, some refuse to stream a request that carries tools, some
reject ``stream_options``. hive sends what all of them accept (``tool_choice: "auto"`` with tools,
``""`` for an assistant turn with no text), and when a server refuses a request for a reason that a
different shape of the same request avoids, the refusal is a ``Lesson``: the client asks again in the
shape the server accepts and ``engine.model.dialect_memory`` keeps the lesson for later runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from msgspec import Struct

Lesson = Literal["no_streaming_with_tools", "no_stream_options"]
"""What a refusal taught: the server does not stream requests with tools / does not take ``stream_options``."""


class WireShape(Struct, frozen=True, kw_only=True):
    """How one request goes over the wire."""

    streamed: bool
    """``"stream": true``: the reply comes as server-sent events."""
    asks_usage: bool
    """``stream_options.include_usage``: the stream's last chunk carries usage (some servers send none otherwise)."""


class ServerFacts(Struct, frozen=True, kw_only=True):
    """What hive learned about one server and model from its refusals (everything accepted until refused)."""

    streams_with_tools: bool = True
    accepts_stream_options: bool = True

    def taught(self, lesson: Lesson) -> ServerFacts:
        """These facts with ``lesson`` learned."""
        if lesson == "no_streaming_with_tools":
            return ServerFacts(streams_with_tools=False, accepts_stream_options=self.accepts_stream_options)
        return ServerFacts(streams_with_tools=self.streams_with_tools, accepts_stream_options=False)


def shape_for(*, streaming: bool, has_tools: bool, facts: ServerFacts) -> WireShape:
    """The shape of a request: streamed when the settings say so and the server streams requests like it."""
    streamed = streaming and (facts.streams_with_tools or not has_tools)
    return WireShape(streamed=streamed, asks_usage=streamed and facts.accepts_stream_options)


_NOT_SUPPORTED = ("not supported", "unsupported", "not implemented", "not allowed", "not permitted")
_UNKNOWN_FIELD = ("unrecognized", "unknown", "unexpected", "extra", "not permitted", "not allowed", "invalid")


def lesson_from(message: str, shape: WireShape, *, has_tools: bool) -> Lesson | None:
    """What a refusal (an HTTP error body, before any output) teaches, if another shape of the request avoids it.

    Only refusals that name what they refuse count: ``stream_options`` named as unknown or not
    allowed, or streaming named as not supported while the request carried tools (llama-cpp-python:
    "Automatic streaming tool choice is not supported").
    """
    lowered = message.lower()
    if shape.asks_usage and "stream_options" in lowered and any(word in lowered for word in _UNKNOWN_FIELD):
        return "no_stream_options"
    refuses_streaming = "stream" in lowered and any(phrase in lowered for phrase in _NOT_SUPPORTED)
    if shape.streamed and has_tools and refuses_streaming:
        return "no_streaming_with_tools"
    return None


def lesson_notice(lesson: Lesson, *, server: str, model: str) -> str:
    """What hive says once, when it learns ``lesson``."""
    where = f"{model} at {server}" if server else model
    if lesson == "no_streaming_with_tools":
        return (
            f"{where} does not stream replies to requests with tools; asking for whole replies instead, "
            "from now on (remembered in hive's cache)"
        )
    return (
        f"{where} does not accept stream_options (the request for usage in a stream); asking without it, "
        "from now on (remembered in hive's cache; usage is estimated)"
    )


TOOL_CALL_EXTRAS = "tool_call_extra_content"
"""Assistant-message field hive keeps for Gemini: each tool call's ``extra_content`` (its thought signature), by
call id; Gemini's client puts it back on the calls, every other server gets the message without it."""


def sendable_messages(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with ``"content": null`` written as ``""`` (an assistant turn that only called tools).

    Servers that render messages through a chat template concatenate ``content`` as a string
    (llama-cpp-python answers null with HTTP 500); ``""`` is accepted by OpenAI, vLLM, llama.cpp,
    Ollama and LM Studio alike, where a missing key breaks templates that index ``message['content']``.
    ``TOOL_CALL_EXTRAS`` is left out.
    """
    return [_sendable(message) for message in messages]


def _sendable(message: dict[str, Any]) -> dict[str, Any]:
    if TOOL_CALL_EXTRAS in message:
        message = {key: value for key, value in message.items() if key != TOOL_CALL_EXTRAS}
    return {**message, "content": ""} if message.get("content", "") is None else message
