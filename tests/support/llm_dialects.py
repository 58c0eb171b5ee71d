"""Dialects of OpenAI-compatible servers, for the scripted server: what real local servers refuse or drop.

A ``Dialect`` is a server-wide behaviour: ``LLMServer(dialect=...)`` (or ``server.dialect = ...``)
judges every chat request by it before taking a scripted reply. A refused request answers the error
a real server sends and takes no scripted reply, so the script stays the conversation the model has.

    server = LLMServer(dialect=Dialect(refuses_streaming_with_tools=True))

The dialects, each seen on a real server:

- ``drops_tools_without_choice``: tools without ``tool_choice`` are silently dropped (llama-cpp-python's
  ``chatml-function-calling``): a scripted tool call comes back as plain text.
- ``refuses_streaming_with_tools``: a streamed request with tools answers HTTP 500 "Automatic streaming
  tool choice is not supported" (the same server, once ``tool_choice`` is sent).
- ``empties_streams_with_tools``: a streamed request with tools answers ``200`` and an event stream that
  ends before its first event (llama-cpp-python's server: the error "Automatic streaming tool choice is
  not supported" is raised inside its stream, after the status went out).
- ``rejects_null_content``: ``"content": null`` in any message answers HTTP 500 (its chat template
  concatenates content as a string).
- ``rejects_stream_options``: a request with ``stream_options`` answers HTTP 400 (servers and proxies
  that do not know the field).
- ``streams_without_usage``: a stream never carries usage, even when asked (llama-cpp-python).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from tests.support.llm_server import Completion, HttpError, RawReply, Reply, http_error, openai_error_body, raw_sse

STREAMING_REFUSAL = "Automatic streaming tool choice is not supported"
NULL_CONTENT_REFUSAL = 'can only concatenate str (not "NoneType") to str'
STREAM_OPTIONS_REFUSAL = "Unrecognized request argument supplied: stream_options"
DROPPED_TOOLS_TEXT = "I cannot do that: I have no tools."


@dataclass(frozen=True)
class Dialect:
    """What the server refuses or drops (all False: it speaks OpenAI's chat completions exactly)."""

    drops_tools_without_choice: bool = False
    refuses_streaming_with_tools: bool = False
    empties_streams_with_tools: bool = False
    rejects_null_content: bool = False
    rejects_stream_options: bool = False
    streams_without_usage: bool = False

    def refusal(self, body: dict[str, Any]) -> HttpError | RawReply | None:
        """The error this server answers ``body`` with, or None when it takes the request."""
        if self.rejects_stream_options and "stream_options" in body:
            return http_error(400, openai_error_body(STREAM_OPTIONS_REFUSAL, "invalid_request_error"))
        if self.rejects_null_content and any(_has_null_content(m) for m in body.get("messages") or ()):
            return http_error(500, openai_error_body(NULL_CONTENT_REFUSAL, "internal_server_error"))
        if self.refuses_streaming_with_tools and body.get("stream") and body.get("tools") and _tools_kept(self, body):
            return http_error(500, openai_error_body(STREAMING_REFUSAL, "internal_server_error"))
        if self.empties_streams_with_tools and body.get("stream") and body.get("tools") and _tools_kept(self, body):
            return raw_sse(done=False)
        return None

    def understood(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` as this server acts on it: dropped tools and ignored fields left out."""
        dropped = ("tools", "tool_choice") if body.get("tools") and not _tools_kept(self, body) else ()
        ignored = ("stream_options",) if self.streams_without_usage else ()
        return {name: value for name, value in body.items() if name not in dropped + ignored}

    def adapted(self, reply: Reply, understood: dict[str, Any]) -> Reply:
        """The scripted ``reply`` as this server sends it: a model that saw no tools calls none, it writes text."""
        if isinstance(reply, Completion) and reply.calls and not understood.get("tools"):
            return dataclasses.replace(reply, calls=(), text=reply.text or DROPPED_TOOLS_TEXT, finish_reason="stop")
        return reply


def _tools_kept(dialect: Dialect, body: dict[str, Any]) -> bool:
    """The model sees the request's tools (this server drops them when no tool_choice came with them)."""
    return bool(body.get("tools")) and (not dialect.drops_tools_without_choice or "tool_choice" in body)


def _has_null_content(message: Any) -> bool:
    return isinstance(message, dict) and "content" in message and message["content"] is None
