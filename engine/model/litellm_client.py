"""The model client over litellm: streaming, stream assembly, hive's own retries, usage and cost."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from msgspec.structs import replace

from engine.events import Usage
from engine.model import dialect_memory, litellm_import
from engine.model.assembly import StreamAssembler, whole_reply_as_chunk
from engine.model.client_settings import ModelSettings
from engine.model.deadline import call_deadline
from engine.model.dialect import WireShape, lesson_from, lesson_notice, sendable_messages, shape_for
from engine.model.empty_stream import unstreamed_after_empty_stream
from engine.model.model_check import check_provider
from engine.model.retrying import with_retries
from engine.model.stream_end import check_finished, explain
from engine.model.types import ModelReply, ModelRequest, StreamItem, StreamOpened, StreamRetry
from engine.model.usage import reported_usage, without_unreported_reasoning
from engine.model.wire_record import WireRecord, current_record


class LiteLLMClient:
    """A ``ModelClient`` that streams through ``litellm.acompletion``."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self._provider_checked = False
        self._tool_choice: bool | None = None
        self._http: tuple[asyncio.AbstractEventLoop, Any] | None = None

    @property
    def model(self) -> str:
        return self.settings.model

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        """Stream one reply, retrying failures that happen before any output (an empty stream: once unstreamed)."""
        streamed = with_retries(lambda assembler: self._attempt(request, assembler), self.settings.retry)
        if not self.settings.streaming:
            return streamed
        unstreamed = LiteLLMClient(replace(self.settings, streaming=False))
        return unstreamed_after_empty_stream(streamed, lambda: unstreamed.stream(request), lambda: self._learn(request))

    def _learn(self, request: ModelRequest) -> None:
        """An empty stream answered whole unstreamed: with tools, the server cannot stream such requests."""
        if request.tools:
            dialect_memory.learn(self.settings.api_base or "", self.model, "no_streaming_with_tools")

    async def _attempt(self, request: ModelRequest, assembler: StreamAssembler) -> AsyncGenerator[StreamItem, None]:
        litellm = litellm_import.loaded()
        if litellm is None:
            litellm = await asyncio.to_thread(litellm_import.load)
        self._check_provider(litellm)
        shape = self._shape_for(request)
        while True:
            record = WireRecord() if self._is_tapped() else None
            opened = False
            try:
                arguments = self._call_arguments(litellm, request, record, shape)  # before the deadline starts
                async with (
                    call_deadline(self.settings.timeout_s) as deadline,
                    _closing(await self._send(litellm, arguments, record)) as response,
                ):
                    opened = True
                    with deadline.paused():
                        yield StreamOpened()
                    async for item in self._items(response, shape, assembler):
                        with deadline.paused():
                            yield item
                break
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if _is_missing_finish_reason(exc, assembler):
                    break
                reshaped = None if opened else self._reshape(exc, request, shape)
                if reshaped is None:
                    raise explain(exc, assembler, record, model=self.model, timeout_s=self.settings.timeout_s) from exc
                shape, notice = reshaped
                yield StreamRetry(category="bad_request", message=notice, attempt=1, delay_s=0.0)
        check_finished(assembler, record, model=self.model, streamed=shape.streamed)
        yield self._reply(assembler, record)

    async def _items(
        self, response: Any, shape: WireShape, assembler: StreamAssembler
    ) -> AsyncGenerator[StreamItem, None]:
        if not shape.streamed:
            for item in assembler.feed(whole_reply_as_chunk(response)):
                yield item
        else:
            async for item in self._read_stream(response, assembler):
                yield item

    def _call_arguments(
        self, litellm: Any, request: ModelRequest, record: WireRecord | None, shape: WireShape
    ) -> dict[str, Any]:
        arguments = self._arguments(litellm, request, shape)
        if record is not None:
            arguments["client"] = self._tapped_client()
        return arguments

    async def _send(self, litellm: Any, arguments: dict[str, Any], record: WireRecord | None) -> Any:
        token = current_record.set(record)
        try:
            return await litellm.acompletion(**arguments)
        finally:
            current_record.reset(token)

    def _shape_for(self, request: ModelRequest) -> WireShape:
        facts = dialect_memory.facts_for(self.settings.api_base or "", self.model)
        return shape_for(streaming=self.settings.streaming, has_tools=bool(request.tools), facts=facts)

    def _reshape(self, exc: Exception, request: ModelRequest, shape: WireShape) -> tuple[WireShape, str] | None:
        """A shape the server accepts, learned from its refusal ``exc``, and the notice; None: nothing learned."""
        if not isinstance(getattr(exc, "status_code", None), int):
            return None
        lesson = lesson_from(str(getattr(exc, "message", None) or exc), shape, has_tools=bool(request.tools))
        if lesson is None:
            return None
        server = self.settings.api_base or ""
        dialect_memory.learn(server, self.model, lesson)
        reshaped = self._shape_for(request)
        return None if reshaped == shape else (reshaped, lesson_notice(lesson, server=server, model=self.model))

    async def _read_stream(self, response: Any, assembler: StreamAssembler) -> AsyncGenerator[StreamItem, None]:
        idle = self.settings.stream_idle_timeout_s
        clock = asyncio.get_running_loop()
        async with asyncio.timeout(idle) as deadline:
            async for chunk in response:
                deadline.reschedule(None)  # the consumer's time between chunks is not the server's idling
                for item in assembler.feed(chunk):
                    yield item
                deadline.reschedule(clock.time() + idle)

    def _check_provider(self, litellm: Any) -> None:
        if not self._provider_checked:
            check_provider(litellm, self.model, self.settings.model_source, self.settings.api_base)
            self._provider_checked = True

    def _is_tapped(self) -> bool:
        """OpenAI-compatible endpoints get the recording HTTP client (it is the OpenAI SDK's to use)."""
        return self.model.startswith("openai/") and bool(self.settings.api_base) and bool(self.settings.api_key)

    def _tapped_client(self) -> Any:
        """One OpenAI SDK client per event loop (its connection pool belongs to the loop), recording responses."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._http[0] is not loop:
            from engine.model.wire import tapped_openai_client

            assert self.settings.api_base and self.settings.api_key
            self._http = (loop, tapped_openai_client(self.settings.api_base, self.settings.api_key))
        return self._http[1]

    def _arguments(self, litellm: Any, request: ModelRequest, shape: WireShape) -> dict[str, Any]:
        options = request.options
        arguments: dict[str, Any] = {
            "model": self.model,
            "messages": sendable_messages(request.messages),
            "stream": shape.streamed,
            "timeout": self.settings.timeout_s,
            "max_retries": 0,
            "num_retries": 0,
        }
        if shape.asks_usage:
            arguments["stream_options"] = {"include_usage": True}
        if self.settings.api_base:
            arguments["api_base"] = self.settings.api_base
        if self.settings.api_key:
            arguments["api_key"] = self.settings.api_key
        if request.tools:
            arguments["tools"] = list(request.tools)
            if self._takes_tool_choice(litellm):
                arguments["tool_choice"] = "auto"  # some servers drop every tool without it
        for name in ("temperature", "max_tokens", "reasoning_effort", "tool_choice", "parallel_tool_calls"):
            value = getattr(options, name)
            if value is not None and (name not in ("tool_choice", "parallel_tool_calls") or request.tools):
                arguments[name] = value
        arguments.update(dict(options.extra))
        return arguments

    def _takes_tool_choice(self, litellm: Any) -> bool:
        """Whether litellm passes ``tool_choice`` on for this model's provider (it refuses unsupported parameters)."""
        if self._tool_choice is None:
            try:
                supported = litellm.get_supported_openai_params(model=self.model)
            except Exception:  # litellm raises plain exceptions for a provider it cannot name
                supported = None
            self._tool_choice = "tool_choice" in (supported or ())
        return self._tool_choice

    def _reply(self, assembler: StreamAssembler, record: WireRecord | None) -> ModelReply:
        reply = without_unreported_reasoning(assembler.reply(reported_usage(assembler.usage_source, record)))
        if not is_priced_endpoint(self.model, self.settings.api_base):
            return reply
        return replace(reply, usage=price(reply.usage, self.model, reply.model))


@asynccontextmanager
async def _closing(response: Any) -> AsyncIterator[Any]:
    """``response``, its stream closed at the end (a stream given up at the deadline releases its connection)."""
    try:
        yield response
    finally:
        if (close := getattr(response, "aclose", None)) is not None:
            await close()


def _is_missing_finish_reason(exc: Exception, assembler: StreamAssembler) -> bool:
    """litellm raises when a stream ends without a finish_reason; real servers do that, so accept it."""
    return "finish_reason" in str(exc) and assembler.received_output and assembler.finish_reason is None


FREE_PROVIDERS = ("ollama/", "ollama_chat/", "lm_studio/", "llamafile/", "hosted_vllm/")


def is_priced_endpoint(model: str, api_base: str | None) -> bool:
    """False for an ``openai/`` model served from a custom base URL: its prices are unknown, not OpenAI's."""
    if not api_base or not model.startswith("openai/"):
        return True
    return urlsplit(api_base).hostname == "api.openai.com"


def price(usage: Usage, *models: str) -> Usage:
    """``usage`` with its cost from litellm's price table; cost stays None if no model is priced."""
    if usage.prompt_tokens is None and usage.completion_tokens is None:
        return usage
    litellm = litellm_import.load()
    for model in dict.fromkeys(m for m in models if m):
        try:
            prompt_cost, completion_cost = litellm.cost_per_token(
                model=model,
                prompt_tokens=usage.prompt_tokens or 0,
                completion_tokens=usage.completion_tokens or 0,
                cache_read_input_tokens=usage.cached_read_tokens or 0,
                cache_creation_input_tokens=usage.cache_write_tokens or 0,
            )
        except Exception:  # litellm raises plain Exception subclasses for unmapped models
            continue
        cost = float(prompt_cost) + float(completion_cost)
        if cost == 0 and not model.startswith(FREE_PROVIDERS):
            continue  # a paid provider's model listed at zero is a gap in the table, not a free model
        return replace(usage, cost_usd=cost)
    return usage
