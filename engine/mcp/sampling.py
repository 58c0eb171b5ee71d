"""A server asks to use hive's model (``sampling/createMessage``): the person decides, the session's model answers.

Each request is put to the person (:class:`SamplingAsker`, implemented by the host): the server, its
system prompt and messages, the token limit and the model that will answer. Allowed, it runs one
completion on the session's current model with no tools, capped at the server's ``maxTokens``; what it
cost is counted in the session's usage under ``mcp:SERVER sampling``; the answer goes back to the server
only, never into hive's conversation. With nobody to ask (``hive run`` without a terminal, ``hive mcp
call``, ``--yes``) or when the person says no, the server gets an error saying so.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol, runtime_checkable

from engine.mcp.sampling_request import (
    SamplingQuestion,
    UnsupportedSampling,
    cut_at_stop_sequence,
    model_request,
    sampling_question,
)
from engine.model.completion import ModelCallFailed, complete
from engine.model.slot import ModelSlot
from engine.model.types import ModelReply
from engine.run.state import Account
from engine.tracking import progress
from engine.usage import Usage

REFUSED = -1
"""The error code the MCP specification's example gives a sampling request the user rejected."""
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
DECLINED = "hive: sampling declined by the user"
NOBODY_TO_ASK = "hive: sampling refused: nobody is here to allow it (hive asks the person at a terminal)"
NO_CALL = "hive: sampling refused: a server may ask only during a call to one of its tools"
CALL_ENDED = "hive: sampling withdrawn: the tool call it was for ended"
STOP_REASONS = {"stop": "endTurn", "length": "maxTokens", "tool_calls": "toolUse"}


@runtime_checkable
class SamplingAsker(Protocol):
    """A host that can ask the person whether a server may use the model."""

    async def allow_sampling(self, question: SamplingQuestion) -> bool:
        """Show ``question`` (its server text as untrusted text) and answer whether the person allows it."""
        ...


def spender(server: str) -> str:
    """The name a server's sampling is counted under in the session's usage."""
    return f"mcp:{server} sampling"


def outside_a_call(started: bool) -> Any:
    """The error for a request no tool call of the server is waiting for (any more, when ``started``)."""
    return _error(REFUSED, CALL_ENDED if started else NO_CALL)


async def nobody_to_ask(server: str, params: Any) -> Any:
    """The handler where no person can be asked (``hive mcp call``, ``list``, ``doctor``): every request refused."""
    return _error(REFUSED, NOBODY_TO_ASK)


class ServerSampling:
    """The handler of ``sampling/createMessage`` for one session (see :mod:`engine.mcp.client_requests`)."""

    def __init__(self, model: ModelSlot, account: Account, asker: SamplingAsker | None) -> None:
        """``asker``: who decides each request (None: nobody can, and every request is refused)."""
        self.model = model
        self.account = account
        self.asker = asker
        self._asking = asyncio.Lock()

    async def __call__(self, server: str, params: Any) -> Any:
        """The SDK's ``CreateMessageResult`` for an allowed request, else its ``ErrorData`` saying why not."""
        if self.asker is None:
            return await nobody_to_ask(server, params)
        client = self.model.client
        try:
            question = sampling_question(server, client.model, params)
            request = model_request(params)
        except UnsupportedSampling as unsupported:
            return _error(INVALID_PARAMS, str(unsupported))
        if not await self._allowed(question):
            return _error(REFUSED, DECLINED)

        def count(usage: Usage) -> None:
            self.account.count(usage, spender(server))
            progress.report_usage(usage, model=client.model)  # in the report of the tool call it was for

        try:
            reply = await complete(client, request, count=count)
        except ModelCallFailed as failed:
            if failed.kind != "cut" or failed.reply is None:
                return _error(INTERNAL_ERROR, f"hive: the model could not answer: {failed}")
            reply = failed.reply
        return _result(reply, client.model, params.stop_sequences)

    async def _allowed(self, question: SamplingQuestion) -> bool:
        """One question at a time; an asker that fails refuses (it never allows)."""
        assert self.asker is not None
        async with self._asking:
            try:
                return await self.asker.allow_sampling(question)
            except asyncio.CancelledError:
                raise
            except Exception:
                return False


def _result(reply: ModelReply, model: str, stops: list[str] | None) -> Any:
    from mcp_types import CreateMessageResult, TextContent

    text, stopped = cut_at_stop_sequence(reply.text, stops)
    reason = "stopSequence" if stopped else STOP_REASONS.get(reply.finish_reason or "stop", reply.finish_reason)
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text=text),
        model=reply.model or model,
        stop_reason=reason,
    )


def _error(code: int, message: str) -> Any:
    from mcp_types import ErrorData

    return ErrorData(code=code, message=message)
