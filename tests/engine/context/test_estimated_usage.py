"""Usage a provider did not report is counted from the request and the reply, and marked estimated."""

from __future__ import annotations

import asyncio

from engine.context.estimated_usage import EstimatedUsage, with_estimated_usage
from engine.context.tokens import TokenCounter
from engine.events import ToolCall
from engine.model.types import ModelReply, ModelRequest
from engine.usage import Usage
from tests.support.agents import client_for
from tests.support.llm_server import LLMServer, raw_sse, text

REQUEST = ModelRequest(messages=({"role": "user", "content": "read the readme please"},))


def final_reply(client: EstimatedUsage, request: ModelRequest = REQUEST) -> ModelReply:
    async def last() -> ModelReply:
        reply = None
        async for item in client.stream(request):
            if isinstance(item, ModelReply):
                reply = item
        assert reply is not None
        return reply

    return asyncio.run(last())


def test_a_sum_with_an_estimated_part_is_estimated() -> None:
    exact = Usage(prompt_tokens=10, completion_tokens=2, calls=1)
    assert not (exact + exact).estimated
    total = exact + Usage(prompt_tokens=5, completion_tokens=1, calls=1, estimated=True)
    assert total.estimated and total.prompt_tokens == 15 and total.to_dict()["estimated"] is True


def test_reported_usage_is_kept_as_the_server_sent_it(llm_server: LLMServer) -> None:
    llm_server.script(text("Hi"))
    usage = final_reply(EstimatedUsage(client_for(llm_server))).usage
    assert not usage.estimated and usage.prompt_tokens is not None


def test_a_reply_without_usage_gets_prompt_and_completion_counted(llm_server: LLMServer) -> None:
    delta = {"content": "The readme says hello to everyone."}
    chunk = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
    end = {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    }
    llm_server.script(raw_sse(chunk, end))
    usage = final_reply(EstimatedUsage(client_for(llm_server))).usage
    assert usage.estimated and usage.calls == 1
    assert usage.prompt_tokens is not None and 8 <= usage.prompt_tokens <= 16
    assert usage.completion_tokens is not None and 5 <= usage.completion_tokens <= 10


def test_tool_call_arguments_count_as_completion() -> None:
    counter = TokenCounter("openai/gpt-4o")
    bare = ModelReply(text="", usage=Usage(calls=1))
    call = ToolCall(id="c1", name="read_file", arguments={"path": "README.md"}, raw_arguments='{"path": "README.md"}')
    calling = ModelReply(text="", tool_calls=(call,), usage=Usage(calls=1))
    bare_usage = with_estimated_usage(bare, REQUEST, counter).usage
    calling_usage = with_estimated_usage(calling, REQUEST, counter).usage
    assert bare_usage.completion_tokens == 0 and bare_usage.estimated
    assert calling_usage.completion_tokens is not None and calling_usage.completion_tokens > 5
