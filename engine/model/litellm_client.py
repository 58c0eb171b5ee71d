"""The model client over litellm: streaming, stream assembly, hive's own retries, usage and cost."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import urlsplit

from msgspec.structs import replace

from engine.events import Usage
from engine.model import litellm_import
from engine.model.assembly import StreamAssembler, whole_reply_as_chunk
from engine.model.client_settings import ModelSettings
from engine.model.empty_stream import unstreamed_after_empty_stream
from engine.model.model_check import check_provider
from engine.model.retrying import with_retries
from engine.model.stream_end import check_finished, explain
from engine.model.types import ModelReply, ModelRequest, StreamItem, StreamOpened
from engine.model.usage import reported_usage, without_unreported_reasoning
from engine.model.wire_record import WireRecord, current_record


class LiteLLMClient:
    """A ``ModelClient`` that streams through ``litellm.acompletion``."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self._provider_checked = False
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
        return unstreamed_after_empty_stream(streamed, lambda: unstreamed.stream(request))

    async def _attempt(self, request: ModelRequest, assembler: StreamAssembler) -> AsyncGenerator[StreamItem, None]:
        litellm = litellm_import.loaded()
        if litellm is None:
            litellm = await asyncio.to_thread(litellm_import.load)
        self._check_provider(litellm)
        record = WireRecord() if self._is_tapped() else None
        try:
            response = await self._send(litellm, request, record)
            yield StreamOpened()
            if not self.settings.streaming:
                for item in assembler.feed(whole_reply_as_chunk(response)):
                    yield item
            else:
                async for item in self._read_stream(response, assembler):
                    yield item
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not _is_missing_finish_reason(exc, assembler):
                raise explain(exc, assembler, record, model=self.model, timeout_s=self.settings.timeout_s) from exc
        check_finished(assembler, record, model=self.model, streamed=self.settings.streaming)
        yield self._reply(assembler, record)

    async def _send(self, litellm: Any, request: ModelRequest, record: WireRecord | None) -> Any:
        arguments = self._arguments(request)
        if record is not None:
            arguments["client"] = self._tapped_client()
        token = current_record.set(record)
        try:
            return await litellm.acompletion(**arguments)
        finally:
            current_record.reset(token)

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

    def _arguments(self, request: ModelRequest) -> dict[str, Any]:
        options = request.options
        arguments: dict[str, Any] = {
            "model": self.model,
            "messages": list(request.messages),
            "stream": self.settings.streaming,
            "timeout": self.settings.timeout_s,
            "max_retries": 0,
            "num_retries": 0,
        }
        if self.settings.streaming:
            arguments["stream_options"] = {"include_usage": True}
        if self.settings.api_base:
            arguments["api_base"] = self.settings.api_base
        if self.settings.api_key:
            arguments["api_key"] = self.settings.api_key
        if request.tools:
            arguments["tools"] = list(request.tools)
        for name in ("temperature", "max_tokens", "reasoning_effort", "tool_choice", "parallel_tool_calls"):
            value = getattr(options, name)
            if value is not None and (name not in ("tool_choice", "parallel_tool_calls") or request.tools):
                arguments[name] = value
        arguments.update(dict(options.extra))
        return arguments

    def _reply(self, assembler: StreamAssembler, record: WireRecord | None) -> ModelReply:
        reply = without_unreported_reasoning(assembler.reply(reported_usage(assembler.usage_source, record)))
        if not is_priced_endpoint(self.model, self.settings.api_base):
            return reply
        return replace(reply, usage=price(reply.usage, self.model, reply.model))


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
