"""One whole answer from a model: ``complete`` drains a stream, and every way it can fail is one error.

The agent loop streams, because it shows the answer as it comes and resumes a cut one. Everything else
that asks the model one question (the planner and its judge, research, the advisor, compaction) wants
the finished answer, so it calls ``complete``. A helper over ``ModelClient.stream`` rather than a
protocol method: every client and every wrapper (estimated usage, a switched model) then gets it for
free and cannot answer differently from its own stream.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import aclosing
from typing import Literal

from engine.errors import ProviderError
from engine.model.types import ModelClient, ModelReply, ModelRequest
from engine.usage import Usage

FailureKind = Literal["provider", "no_reply", "refused", "empty", "cut"]
"""Why a call gave no usable answer: the provider failed (transport, HTTP status, a broken stream, a response
that was no completion), the stream ended without a reply, or the reply was a refusal, empty, or cut at the
output limit."""

UsageSink = Callable[[Usage], None]
"""Where the tokens a call spent are counted."""


class ModelCallFailed(ProviderError):
    """A ``complete`` call gave no usable answer; ``str(error)`` is what the person should be told.

    A ``ProviderError`` with the category, status and timing of the failure, so whoever already handled
    provider failures handles this one the same way.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: FailureKind,
        reply: ModelReply | None = None,
        cause: ProviderError | None = None,
    ) -> None:
        super().__init__(
            message,
            category=cause.category if cause is not None else "bad_response",
            status_code=cause.status_code if cause is not None else None,
            retry_after_s=cause.retry_after_s if cause is not None else None,
            after_output=cause.after_output if cause is not None else False,
        )
        self.kind: FailureKind = kind
        self.reply = reply
        """The reply as it came back (refused, empty or cut); None when no reply came."""
        self.cause = cause
        """The client's own error, when the provider failed."""


async def complete(client: ModelClient, request: ModelRequest, *, count: UsageSink | None = None) -> ModelReply:
    """The whole reply to ``request``; raises ``ModelCallFailed`` unless it is a usable answer.

    ``count`` gets the usage of the reply whenever one came back, usable or not (it cost tokens either way).
    """
    reply = await _drain(client, request)
    if count is not None:
        count(reply.usage)
    problem = _problem_with(reply, client.model)
    if problem is not None:
        kind, message = problem
        raise ModelCallFailed(message, kind=kind, reply=reply)
    return reply


async def _drain(client: ModelClient, request: ModelRequest) -> ModelReply:
    """The reply the stream ends with; ``ModelCallFailed`` when the client failed or sent none."""
    try:
        async with aclosing(client.stream(request)) as items:
            async for item in items:
                if isinstance(item, ModelReply):
                    return item
    except ProviderError as error:
        raise ModelCallFailed(str(error), kind="provider", cause=error) from error
    raise ModelCallFailed("the model stream ended without a reply", kind="no_reply")


def _problem_with(reply: ModelReply, model: str) -> tuple[FailureKind, str] | None:
    """Why ``reply`` is no usable answer, in the words for the person; None when it is one."""
    if reply.finish_reason == "content_filter":
        return "refused", f"{model} refused to answer (its content filter stopped the reply)"
    if reply.finish_reason == "length":
        return "cut", f"the answer from {model} was cut off at its output limit"
    if not reply.text.strip() and not reply.tool_calls:
        return "empty", f"{model} answered with nothing"
    return None
