"""Usage the provider did not report, counted locally: a model-client wrapper that marks it estimated.

Some servers (llama-cpp-python's, for one) send no usage when streaming. A reply without prompt or
completion counts gets them counted here from the request it answered and from the reply itself,
with ``estimated`` set, so no one reads a 0 that nobody measured. Counts the provider did report
are kept as they are.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from msgspec.structs import replace

from engine.context.tokens import TokenCounter, counter_for
from engine.model.types import ModelClient, ModelReply, ModelRequest, StreamItem


class EstimatedUsage:
    """A ``ModelClient`` that fills in the token counts the wrapped client's provider left out."""

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner

    @property
    def model(self) -> str:
        return self.inner.model

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        """The wrapped stream; its final reply with estimated counts where none were reported."""
        async with aclosing(self.inner.stream(request)) as items:
            async for item in items:
                if isinstance(item, ModelReply):
                    item = with_estimated_usage(item, request, counter_for(self.model))
                yield item


def with_estimated_usage(reply: ModelReply, request: ModelRequest, counter: TokenCounter) -> ModelReply:
    """``reply`` with its missing prompt and completion counts counted by ``counter`` (and marked estimated)."""
    usage = reply.usage
    if usage.prompt_tokens is not None and usage.completion_tokens is not None:
        return reply
    prompt = usage.prompt_tokens
    if prompt is None:
        prompt = counter.request(request.messages, request.tools)
    completion = usage.completion_tokens
    if completion is None:
        calls = [(call.name, call.raw_arguments or "") for call in reply.tool_calls]
        completion = counter.reply(reply.text, reply.reasoning, calls)
    reasoning = usage.reasoning_tokens
    if reasoning is None and reply.reasoning:
        reasoning = counter.text(reply.reasoning)
    estimated = replace(
        usage, prompt_tokens=prompt, completion_tokens=completion, reasoning_tokens=reasoning, estimated=True
    )
    return replace(reply, usage=estimated)
