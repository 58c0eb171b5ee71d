"""A scripted OpenAI-compatible chat-completions and Responses API server for tests, on a real loopback socket.

The test pushes replies; each chat request pops the next one. Text and tool calls are streamed as SSE in
OpenAI's chunk format when the request says `"stream": true` (usage chunk only with
`stream_options.include_usage`), or returned as one `chat.completion` JSON otherwise. Failures (429, 5xx,
context overflow, 401), cut streams, in-stream error events and hangs are replies too. POST /v1/responses
answers the same scripted replies in OpenAI's Responses API format (see `responses_wire`).

    with LLMServer() as server:
        server.script(tool_calls(call("read_file", {"path": "a.txt"})), text("done"))
        litellm.completion(model="openai/test-model", api_base=server.base_url, api_key="sk-test", ...)
        assert server.requests[1].messages[-1]["role"] == "tool"
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Self, TypedDict, Unpack

from tests.support import responses_wire
from tests.support.llm_window import ServedWindow
from tests.support.local_http import LocalServer, RecordedRequest, ResponseWriter

if TYPE_CHECKING:
    from tests.support.llm_dialects import Dialect

DEFAULT_MODEL = "test-model"
"""Model id listed by GET /v1/models and echoed when a request names no model."""

_CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
_RESPONSES_PATHS = ("/v1/responses", "/responses")
_MODELS_PATHS = ("/v1/models", "/models")
_EMBEDDINGS_PATHS = ("/v1/embeddings", "/embeddings")
_SSE_HEADERS = (("Content-Type", "text/event-stream"),)
_DONE = b"data: [DONE]\n\n"
_AUTO = "\x00auto-id"


# ---------------------------------------------------------------------------------------------------------------
# Reply kinds


@dataclass(frozen=True)
class Usage:
    """Token counts reported for one reply; None means "estimate it" (about four characters a token)."""

    prompt_tokens: int | None = None
    """Default: estimated from the request's messages and tools."""
    completion_tokens: int | None = None
    """Default: estimated from the reply's text, reasoning and tool-call arguments."""
    cached_tokens: int = 0
    """Reported as prompt_tokens_details.cached_tokens (part of prompt_tokens)."""
    reasoning_tokens: int | None = None
    """Reported as completion_tokens_details.reasoning_tokens; default: estimated from the reasoning text."""


@dataclass(frozen=True)
class ToolCall:
    """One tool call of a reply (build it with `call()`)."""

    name: str
    arguments: str
    """JSON text sent verbatim: "" (meaning {}) and invalid JSON are allowed on purpose."""
    id: str | None
    """The call id; None leaves the id key out of the wire format altogether."""


@dataclass(frozen=True)
class StreamError:
    """An error object sent inside an HTTP 200 stream, after `after` ordinary chunks (Groq does this)."""

    error: Mapping[str, Any]
    """The object sent as `{"error": ...}`."""
    after: int = 2
    """Number of ordinary SSE events sent before the error event."""
    event: str | None = "error"
    """SSE event name line (`event: error`); None sends only the `data:` line. On the Responses route,
    "response.failed" sends a failed response instead of an `error` event."""
    done: bool = False
    """Send `data: [DONE]` after the error (Groq does not)."""


@dataclass(frozen=True, kw_only=True)
class _Reply:
    delay: float = 0.0
    """Seconds to wait before answering (interrupted by the server closing)."""


@dataclass(frozen=True, kw_only=True)
class Completion(_Reply):
    """A successful answer: optional reasoning, text and tool calls (build it with `text()` or `tool_calls()`)."""

    text: str = ""
    reasoning: str = ""
    """Sent first, as `delta.reasoning_content` (message.reasoning_content when not streaming)."""
    calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = "stop"
    """None: no chunk ever carries a finish_reason (the stream just ends with [DONE])."""
    usage: Usage = field(default_factory=Usage)
    chunk_size: int = 4
    """Characters per content, reasoning or arguments fragment."""
    repeat_name: bool = False
    """Repeat index, id, type and name on every tool-call fragment (OpenRouter style)."""
    whole_arguments: bool = False
    """Send each call's arguments as one fragment after the id+name fragment."""
    chunk_delay: float = 0.0
    """Seconds between SSE events."""
    first_chunk_delay: float = 0.0
    """Seconds between the response headers and the first SSE event (the model at work, once connected)."""
    cut_after: int | None = None
    """Close the connection after this many SSE events, without [DONE] or the end of the chunked body."""
    cut_mid_event: bool = False
    """With `cut_after`: then send the first half of the next event and end the body there, as a complete
    chunked body (the server closes the stream in the middle of an event, cleanly)."""
    trickle: float | None = None
    """Send the SSE body one byte at a time, pausing this many seconds before each byte (a server that
    trickles); `chunk_delay` and `first_chunk_delay` do not apply then."""
    trickle_after: int = 0
    """With `trickle`: the first this many events go out whole (a pause before each), then the trickle."""
    error: StreamError | None = None
    """Send an error object inside the 200 stream and end there."""
    model: str | None = None
    """Model name in the reply; default: the request's model."""
    response_id: str | None = None
    """The response's id on the wire (chat ``id``, Responses ``id``); default: a fresh random one."""


@dataclass(frozen=True, kw_only=True)
class HttpError(_Reply):
    """An HTTP error status with a JSON body (build it with `rate_limited()`, `server_error()`, ...)."""

    status: int
    body: Mapping[str, Any]
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, kw_only=True)
class Hang(_Reply):
    """Accept the request and never answer: wait `seconds` (None: until the server closes), then disconnect."""

    seconds: float | None = None


@dataclass(frozen=True, kw_only=True)
class RawReply(_Reply):
    """Exact bytes: one body with Content-Length, or a tuple of pieces sent as a chunked body."""

    body: bytes | tuple[bytes, ...]
    status: int = 200
    headers: tuple[tuple[str, str], ...] = (("Content-Type", "application/json"),)
    chunk_delay: float = 0.0


Reply = Completion | HttpError | Hang | RawReply
"""Anything the server can answer with."""
Scripted = Reply | Callable[[dict[str, Any]], Reply]
"""A reply, or a callable that gets the request's JSON body and returns the reply."""


# ---------------------------------------------------------------------------------------------------------------
# Builders


class CompletionOptions(TypedDict, total=False):
    """Keyword options shared by `text()` and `tool_calls()` (see `Completion`)."""

    usage: Usage
    chunk_size: int
    delay: float
    chunk_delay: float
    first_chunk_delay: float
    cut_after: int | None
    model: str | None
    response_id: str | None


def text(
    content: str, *, reasoning: str = "", finish_reason: str | None = "stop", **options: Unpack[CompletionOptions]
) -> Completion:
    """A text answer, e.g. `text("Hello", reasoning="Greet back", chunk_size=2, usage=Usage(prompt_tokens=9))`."""
    return Completion(text=content, reasoning=reasoning, finish_reason=finish_reason, **options)


def call(name: str, arguments: Mapping[str, Any] | str | None = None, *, id: str | None = _AUTO) -> ToolCall:
    """A tool call: `arguments` as a mapping (sent as JSON), or raw text ("" and broken JSON allowed).

    `id` defaults to a fresh `call_<24 hex>`; pass "" for an empty id or None to leave the id out.
    """
    args = _dumps(arguments if arguments is not None else {}) if not isinstance(arguments, str) else arguments
    return ToolCall(name=name, arguments=args, id=f"call_{secrets.token_hex(12)}" if id == _AUTO else id)


def tool_calls(
    *calls: ToolCall,
    text: str = "",
    reasoning: str = "",
    finish_reason: str | None = "tool_calls",
    repeat_name: bool = False,
    whole_arguments: bool = False,
    **options: Unpack[CompletionOptions],
) -> Completion:
    """One or several parallel tool calls, optionally after some text; quirks as in `Completion`."""
    return Completion(
        text=text,
        reasoning=reasoning,
        calls=calls,
        finish_reason=finish_reason,
        repeat_name=repeat_name,
        whole_arguments=whole_arguments,
        **options,
    )


def stream_cut(content: str = "This answer is cut off before it", *, after: int = 3) -> Completion:
    """A streamed text answer whose connection closes after `after` SSE events (no [DONE])."""
    return Completion(text=content, cut_after=after)


def stream_cut_mid_event(content: str = "This answer is cut off inside an event", *, after: int = 3) -> Completion:
    """A streamed text answer whose body ends cleanly in the middle of event `after + 1` (no [DONE])."""
    return Completion(text=content, cut_after=after, cut_mid_event=True)


def trickled(reply: Completion, pause: float, *, after: int = 0) -> Completion:
    """The same streamed reply, sent one byte at a time with `pause` seconds before each byte (after the
    first `after` events, sent whole)."""
    return dataclasses.replace(reply, trickle=pause, trickle_after=after)


def stream_error(
    error: Mapping[str, Any] | None = None,
    *,
    after: int = 2,
    content: str = "Partial answer",
    event: str | None = "error",
    done: bool = False,
) -> Completion:
    """An HTTP 200 stream that sends `after` chunks of `content`, then `event: error` / `data: {"error": ...}`."""
    error = error or {"message": "llm_server: scripted mid-stream error", "type": "server_error", "code": None}
    return Completion(text=content, error=StreamError(error=error, after=after, event=event, done=done))


def openai_error_body(message: str, type: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    """OpenAI's error envelope: {"error": {"message", "type", "param", "code"}}."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def http_error(status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> HttpError:
    """Any status with any JSON body."""
    return HttpError(status=status, body=body, headers=tuple((headers or {}).items()))


def rate_limited(retry_after: float | None = 1, *, model: str = DEFAULT_MODEL) -> HttpError:
    """HTTP 429 with OpenAI's rate-limit body and a `Retry-After: <seconds>` header (None: no header)."""
    wait = 11.122 if retry_after is None else retry_after
    message = (
        f"Rate limit reached for {model} in organization org-test on tokens per min (TPM): Limit 200000, "
        f"Used 191584, Requested 45490. Please try again in {wait:g}s. "
        "Visit https://platform.openai.com/account/rate-limits to learn more."
    )
    headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
    return http_error(429, openai_error_body(message, "tokens", "rate_limit_exceeded"), headers)


def insufficient_quota() -> HttpError:
    """HTTP 429 that retrying never fixes (type and code `insufficient_quota`)."""
    message = (
        "You exceeded your current quota, please check your plan and billing details. For more information on "
        "this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."
    )
    return http_error(429, openai_error_body(message, "insufficient_quota", "insufficient_quota"))


def server_error(status: int = 500, message: str | None = None) -> HttpError:
    """HTTP 500 (or 502/503/...) with OpenAI's `server_error` body."""
    default = "The server had an error while processing your request. Sorry about that!"
    if status == 503:
        default = "The server is overloaded or not ready yet."
    return http_error(status, openai_error_body(message or default, "server_error"))


ContextVariant = Literal["openai", "openai_new", "llama_cpp", "vllm"]


def context_overflow(variant: ContextVariant = "openai", *, limit: int = 8192, used: int = 8227) -> HttpError:
    """HTTP 400 for a prompt over the context window, worded as OpenAI (classic or newer), llama.cpp or vLLM say it."""
    return http_error(400, _CONTEXT_BODIES[variant](limit, used))


def _openai_context_body(limit: int, used: int) -> dict[str, Any]:
    message = (
        f"This model's maximum context length is {limit} tokens. However, your messages resulted in "
        f"{used} tokens. Please reduce the length of the messages."
    )
    return openai_error_body(message, "invalid_request_error", "context_length_exceeded", "messages")


def _openai_new_context_body(limit: int, used: int) -> dict[str, Any]:
    message = "Your input exceeds the context window of this model. Please adjust your input and try again."
    return openai_error_body(message, "invalid_request_error", "context_length_exceeded", "messages")


def _llama_cpp_context_body(limit: int, used: int) -> dict[str, Any]:
    message = "the request exceeds the available context size, try increasing it"
    error = {"code": 400, "message": message, "type": "exceed_context_size_error"}
    return {"error": {**error, "n_prompt_tokens": used, "n_ctx": limit}}


def _vllm_context_body(limit: int, used: int) -> dict[str, Any]:
    message = (
        f"This model's maximum context length is {limit} tokens. However, you requested {used} tokens "
        f"({used - 1000} in the messages, 1000 in the completion). Please reduce the length of the "
        "messages or completion."
    )
    return {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400}


_CONTEXT_BODIES: dict[str, Callable[[int, int], dict[str, Any]]] = {
    "openai": _openai_context_body,
    "openai_new": _openai_new_context_body,
    "llama_cpp": _llama_cpp_context_body,
    "vllm": _vllm_context_body,
}


def auth_error() -> HttpError:
    """HTTP 401 `invalid_api_key`, as OpenAI sends it."""
    message = (
        "Incorrect API key provided: sk-test. You can find your API key at "
        "https://platform.openai.com/account/api-keys."
    )
    return http_error(401, openai_error_body(message, "invalid_request_error", "invalid_api_key"))


def hang(seconds: float | None = None) -> Hang:
    """Never answer: hold the connection `seconds` (None: until the server closes), then drop it."""
    return Hang(seconds=seconds)


def raw(body: bytes, *, status: int = 200, content_type: str = "application/json") -> RawReply:
    """Exact response bytes with a Content-Length."""
    return RawReply(body=body, status=status, headers=(("Content-Type", content_type),))


def raw_sse(*events: Mapping[str, Any] | str, done: bool = True, chunk_delay: float = 0.0) -> RawReply:
    """A hand-written SSE stream: each event is a JSON object (sent as `data: {...}`) or a literal event text."""
    pieces = [_literal_event(event) if isinstance(event, str) else _sse(_dumps(event)) for event in events]
    return RawReply(body=(*pieces, *([_DONE] if done else [])), headers=_SSE_HEADERS, chunk_delay=chunk_delay)


def delayed(reply: Reply, seconds: float) -> Reply:
    """The same reply, sent after `seconds`."""
    return dataclasses.replace(reply, delay=seconds)


class HeldReply:
    """A reply sent only once the test lets it go, so a test can act while the model is "still answering".

    held = HeldReply(text("done"))
    server.script(held)
    ...                     # start the client
    held.wait_arrived()     # the request is at the server: the model is answering now
    ...                     # act while it answers
    held.release()
    """

    def __init__(self, reply: Reply, *, guard_s: float = 60) -> None:
        self.reply = reply
        self.guard_s = guard_s
        """A failure guard only: the longest the server holds the reply when the test never releases it."""
        self._arrived = threading.Event()
        self._released = threading.Event()

    def __call__(self, body: dict[str, Any]) -> Reply:
        self._arrived.set()
        self._released.wait(self.guard_s)
        return self.reply

    def wait_arrived(self) -> None:
        """Return once the request for this reply reached the server."""
        assert self._arrived.wait(self.guard_s), "the request for the held reply never came"

    def release(self) -> None:
        """Let the server send the reply."""
        self._released.set()


# ---------------------------------------------------------------------------------------------------------------
# The server


class LLMServer(LocalServer):
    """OpenAI-compatible chat-completions server answering from a queue of scripted replies.

    Routes: POST /v1/chat/completions (and /chat/completions), GET /v1/models, POST /v1/embeddings (each
    text's letter counts, normalised: texts sharing words come out close). `requests` records every
    request received; `remaining` counts the replies not yet used. An empty queue answers 500 with
    "llm_server: no scripted reply left".
    """

    name = "llm_server"

    def __init__(
        self, *replies: Scripted, model: str = DEFAULT_MODEL, host: str = "127.0.0.1", dialect: Dialect | None = None
    ) -> None:
        self.model = model
        self.dialect: Dialect | None = dialect
        """What the server refuses or drops, as a real one does (``tests.support.llm_dialects``); None: nothing."""
        self._queue: deque[Scripted] = deque(replies)
        self._queue_lock = threading.Lock()
        self.served_window: ServedWindow | None = None
        super().__init__(host)

    def serve_window(self, served: ServedWindow) -> Self:
        """Say and enforce a window as a local server does (``tests.support.llm_window``)."""
        self.served_window = served
        return self

    def script(self, *replies: Scripted) -> Self:
        """Append replies to the queue; each chat request takes the next one."""
        with self._queue_lock:
            self._queue.extend(replies)
        return self

    @property
    def remaining(self) -> int:
        """Number of scripted replies not used yet."""
        return len(self._queue)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The chat-completion requests received (GET /models and stray requests left out)."""
        return [r for r in self.requests if r.method == "POST" and _is_chat(_route(r.path))]

    @property
    def responses_requests(self) -> list[RecordedRequest]:
        """The Responses API requests received."""
        return [r for r in self.requests if r.method == "POST" and _route(r.path) in _RESPONSES_PATHS]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        """The embedding requests received."""
        return [r for r in self.requests if r.method == "POST" and _route(r.path) in _EMBEDDINGS_PATHS]

    def handle(self, request: RecordedRequest, writer: ResponseWriter) -> None:
        """Route one request."""
        if self.served_window is not None and self.served_window.answer(request, writer):
            return
        route = _route(request.path)
        if request.method == "GET" and route in _MODELS_PATHS:
            writer.send_json(200, self._models_list())
        elif request.method == "POST" and route in _EMBEDDINGS_PATHS:
            writer.send_json(200, _embeddings(request.json if isinstance(request.json, dict) else {}))
        elif request.method == "POST" and (_is_chat(route) or route in _RESPONSES_PATHS):
            self._chat(request, writer, responses=route in _RESPONSES_PATHS)
        else:
            message = f"llm_server: no route for {request.method} {request.path}"
            writer.send_json(404, openai_error_body(message, "invalid_request_error", "unknown_url"))

    def _models_list(self) -> dict[str, Any]:
        model = {"id": self.model, "object": "model", "created": 1700000000, "owned_by": "llm_server"}
        return {"object": "list", "data": [model]}

    def _chat(self, request: RecordedRequest, writer: ResponseWriter, *, responses: bool = False) -> None:
        if not isinstance(request.json, dict):
            message = "We could not parse the JSON body of your request."
            writer.send_json(400, openai_error_body(message, "invalid_request_error"))
            return
        body, refusal = self._by_dialect(request.json)
        if isinstance(refusal, RawReply):
            _send_raw(refusal, writer)
            return
        if refusal is not None:
            writer.send_json(refusal.status, refusal.body)
            return
        reply = self._next_reply(body)
        if reply is None:
            self.errors.append(AssertionError("llm_server: no scripted reply left"))
            writer.send_json(500, openai_error_body("llm_server: no scripted reply left", "server_error"))
        elif writer.wait(reply.delay):
            reply = self.dialect.adapted(reply, body) if self.dialect is not None else reply
            _send_reply(reply, body, writer, responses=responses)
        else:
            writer.abort()

    def _by_dialect(self, body: dict[str, Any]) -> tuple[dict[str, Any], HttpError | RawReply | None]:
        """The body as the server's dialect understands it, or the dialect's refusal of it."""
        if self.dialect is None:
            return body, None
        return self.dialect.understood(body), self.dialect.refusal(body)

    def _next_reply(self, body: dict[str, Any]) -> Reply | None:
        with self._queue_lock:
            if not self._queue:
                return None
            scripted = self._queue.popleft()
        return scripted(body) if callable(scripted) else scripted


# ---------------------------------------------------------------------------------------------------------------
# Sending replies


def _send_reply(reply: Reply, body: dict[str, Any], writer: ResponseWriter, *, responses: bool = False) -> None:
    if isinstance(reply, Completion):
        _send_completion(reply, body, writer, responses=responses)
    elif isinstance(reply, HttpError):
        writer.send_json(reply.status, reply.body, reply.headers)
    elif isinstance(reply, Hang):
        writer.wait(reply.seconds)
        writer.abort()
    else:
        _send_raw(reply, writer)


def _send_raw(reply: RawReply, writer: ResponseWriter) -> None:
    if isinstance(reply.body, bytes):
        writer.send(reply.status, reply.body, reply.headers)
        return
    writer.start_chunked(reply.status, reply.headers)
    if _write_events(list(reply.body), reply.chunk_delay, writer):
        writer.end_chunked()


def _send_completion(reply: Completion, body: dict[str, Any], writer: ResponseWriter, *, responses: bool) -> None:
    if body.get("stream"):
        _stream_completion(reply, body, writer, responses=responses)
    elif reply.error is not None:
        writer.send_json(500, {"error": dict(reply.error.error)})
    else:
        whole = responses_wire.response_object if responses else _completion_object
        payload = _dumps(whole(reply, body, _usage(reply, body))).encode()
        headers = [("Content-Type", "application/json")]
        if reply.cut_after is None:
            writer.send(200, payload, headers)
        else:
            writer.send_truncated(200, payload, headers, keep=len(payload) // 2)


def _stream_completion(reply: Completion, body: dict[str, Any], writer: ResponseWriter, *, responses: bool) -> None:
    if responses:
        events, done = responses_wire.stream_events(reply, body, _usage(reply, body)), []
    else:
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        events, done = [_sse(_dumps(chunk)) for chunk in _chunks(reply, body, include_usage)] + [_DONE], [_DONE]
    if reply.error is not None:
        failure = responses_wire.error_event(reply.error.error, reply.error.event) if responses else None
        failure = failure or _error_event(reply.error)
        events = events[: reply.error.after] + [failure] + (done if reply.error.done else [])
    if reply.cut_after is not None:
        unfinished = events[reply.cut_after : reply.cut_after + 1] if reply.cut_mid_event else []
        events = events[: reply.cut_after] + [event[: len(event) // 2] for event in unfinished]
    writer.start_chunked(200, _SSE_HEADERS)
    if reply.trickle is not None:
        whole = events[: reply.trickle_after]
        events, pause, first_pause = whole + _bytes_of(events[len(whole) :]), reply.trickle, reply.trickle
    else:
        pause, first_pause = reply.chunk_delay, reply.first_chunk_delay
    if not writer.wait(first_pause):
        writer.abort()
        return
    if not _write_events(events, pause, writer):
        return
    if reply.cut_after is None or reply.cut_mid_event:
        writer.end_chunked()
    else:
        writer.abort()


def _bytes_of(events: list[bytes]) -> list[bytes]:
    """The events' bytes, one a piece (a trickling server sends each in a chunk of its own)."""
    return [bytes([byte]) for byte in b"".join(events)]


def _write_events(events: list[bytes], chunk_delay: float, writer: ResponseWriter) -> bool:
    """Write the events one chunk each; False (connection dropped) when the server closes meanwhile."""
    for number, event in enumerate(events):
        if number and not writer.wait(chunk_delay):
            writer.abort()
            return False
        writer.write_chunk(event)
    return True


def _sse(data: str, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data}\n\n".encode()


def _literal_event(text: str) -> bytes:
    """`text` as a whole SSE event when it already has field lines, else as the data of one."""
    if not text.startswith(("data:", "event:", ":", "id:", "retry:")):
        return _sse(text)
    return (text.rstrip("\n") + "\n\n").encode()


def _error_event(error: StreamError) -> bytes:
    return _sse(_dumps({"error": dict(error.error)}), error.event)


# ---------------------------------------------------------------------------------------------------------------
# Wire objects


def _chunks(reply: Completion, body: dict[str, Any], include_usage: bool) -> Iterator[dict[str, Any]]:
    envelope = _envelope(reply, body, "chat.completion.chunk")
    for delta in _deltas(reply):
        yield {**envelope, "choices": [_choice(delta=delta, finish_reason=None)]}
    if reply.finish_reason is not None:
        yield {**envelope, "choices": [_choice(delta={}, finish_reason=reply.finish_reason)]}
    if include_usage:
        yield {**envelope, "choices": [], "usage": _usage(reply, body)}


def _deltas(reply: Completion) -> Iterator[dict[str, Any]]:
    """Role chunk, reasoning pieces, content pieces, then each call's fragments (the role rides on the first)."""
    role_pending = bool(reply.calls) and not (reply.text or reply.reasoning)
    if not role_pending:
        yield {"role": "assistant", "content": "", "refusal": None}
    yield from ({"reasoning_content": piece} for piece in _pieces(reply.reasoning, reply.chunk_size))
    yield from ({"content": piece} for piece in _pieces(reply.text, reply.chunk_size))
    for index, tool_call in enumerate(reply.calls):
        for fragment in _call_fragments(index, tool_call, reply):
            if role_pending:
                role_pending = False
                yield {"role": "assistant", "content": None, "tool_calls": [fragment], "refusal": None}
            else:
                yield {"tool_calls": [fragment]}


def _call_fragments(index: int, tool_call: ToolCall, reply: Completion) -> Iterator[dict[str, Any]]:
    head: dict[str, Any] = {"index": index}
    if tool_call.id is not None:
        head["id"] = tool_call.id
    head |= {"type": "function", "function": {"name": tool_call.name, "arguments": ""}}
    yield head
    arguments = tool_call.arguments
    pieces = [arguments] if reply.whole_arguments and arguments else _pieces(arguments, reply.chunk_size)
    for piece in pieces:
        if reply.repeat_name:
            yield {**head, "function": {"name": tool_call.name, "arguments": piece}}
        else:
            yield {"index": index, "function": {"arguments": piece}}


def _completion_object(reply: Completion, body: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.text or (None if reply.calls else ""),
        "refusal": None,
        "annotations": [],
    }
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.calls:
        message["tool_calls"] = [_call_object(tool_call) for tool_call in reply.calls]
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": reply.finish_reason}
    return {**_envelope(reply, body, "chat.completion"), "choices": [choice], "usage": usage}


def _call_object(tool_call: ToolCall) -> dict[str, Any]:
    head = {} if tool_call.id is None else {"id": tool_call.id}
    return {**head, "type": "function", "function": {"name": tool_call.name, "arguments": tool_call.arguments}}


def _envelope(reply: Completion, body: dict[str, Any], kind: str) -> dict[str, Any]:
    return {
        "id": reply.response_id or f"chatcmpl-{secrets.token_hex(12)}",
        "object": kind,
        "created": int(time.time()),
        "model": reply.model or body.get("model") or DEFAULT_MODEL,
        "system_fingerprint": "fp_llm_server",
    }


def _choice(*, delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}


def _usage(reply: Completion, body: dict[str, Any]) -> dict[str, Any]:
    usage = reply.usage
    request_text = _dumps([body.get("messages", []), body.get("input", []), body.get("tools", [])])
    reply_text = reply.text + reply.reasoning + "".join(c.name + c.arguments for c in reply.calls)
    prompt = usage.prompt_tokens if usage.prompt_tokens is not None else max(1, _estimate(request_text))
    completion = usage.completion_tokens if usage.completion_tokens is not None else max(1, _estimate(reply_text))
    reasoning = usage.reasoning_tokens if usage.reasoning_tokens is not None else _estimate(reply.reasoning)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _dumps(payload: Any) -> str:
    """Compact JSON, as OpenAI writes it."""
    return json.dumps(payload, separators=(",", ":"))


def _estimate(text: str) -> int:
    return (len(text) + 3) // 4


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _embeddings(body: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI embeddings answer: one vector per input text, its letter counts normalised."""
    texts = body.get("input") or []
    texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
    data = [{"object": "embedding", "index": i, "embedding": _letter_vector(t)} for i, t in enumerate(texts)]
    tokens = sum(_estimate(t) for t in texts)
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return {"object": "list", "data": data, "model": body.get("model", ""), "usage": usage}


def _letter_vector(text: str) -> list[float]:
    counts = [float(text.lower().count(letter)) for letter in "abcdefghijklmnopqrstuvwxyz"]
    norm = sum(c * c for c in counts) ** 0.5 or 1.0
    return [c / norm for c in counts]


def _is_chat(route: str) -> bool:
    """A chat-completions path: OpenAI's, or a provider's under its own prefix (Azure's deployments, Gemini's)."""
    return route in _CHAT_PATHS or route.endswith("/chat/completions")


def _route(path: str) -> str:
    return path.split("?", 1)[0].rstrip("/")
