"""A server asks to use hive's model (``sampling/createMessage``): real servers over stdio, the scripted model answering."""

from __future__ import annotations

import asyncio
import json
import secrets
from pathlib import Path

import pytest

from engine.events import ToolCall
from engine.mcp.client_requests import ClientRequests
from engine.mcp.config import McpServers, ServerConfig
from engine.mcp.manager import McpManager
from engine.mcp.sampling import DECLINED, NOBODY_TO_ASK, SamplingAsker, ServerSampling
from engine.mcp.sampling_request import SampledMessage, SamplingQuestion
from engine.model.client_settings import ModelSettings
from engine.model.openai_compat import OpenAICompatClient
from engine.model.providers import openai_compatible_endpoint
from engine.model.slot import ModelSlot
from engine.run.state import Account
from engine.tools.base import ToolContext, ToolResult
from engine.usage import Usage
from tests.support.llm_server import LLMServer, text
from tests.support.llm_server import Usage as Reported
from tests.support.mcp_servers import EVERYTHING, python_server, require_reference_servers, stdio

SPENT = "mcp:py sampling"


class Person:
    """The host's side of the question: records what it was shown and answers as told."""

    def __init__(self, allows: bool) -> None:
        self.allows = allows
        self.asked: list[SamplingQuestion] = []

    async def allow_sampling(self, question: SamplingQuestion) -> bool:
        self.asked.append(question)
        return self.allows


def _slot(server: LLMServer) -> ModelSlot:
    settings = ModelSettings(model="openai/test-model", api_base=server.base_url, api_key="sk-test")
    endpoint = openai_compatible_endpoint(settings)
    assert endpoint is not None
    return ModelSlot(OpenAICompatClient(settings, endpoint))


async def _call(
    server: ServerConfig, tool: str, arguments: dict[str, object], sampling: ServerSampling, tmp_path: Path
) -> ToolResult:
    manager = McpManager(McpServers(servers=(server,)), tmp_path / "logs", requests=ClientRequests(sample=sampling))
    await manager.start()
    try:
        await asyncio.wait_for(manager.wait_ready(), 20)
        ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path)
        return await manager.call(ToolCall(id=secrets.token_hex(4), name=tool, arguments=arguments), ctx)
    finally:
        await manager.stop()


def _summarize(sampling: ServerSampling, tmp_path: Path, **arguments: object) -> ToolResult:
    arguments = {"text": "A long story about bees.", **arguments}
    return asyncio.run(_call(python_server(), "mcp__py__summarize", arguments, sampling, tmp_path))


def test_allowed_the_models_answer_goes_to_the_server_and_counts_under_its_name(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("Bees tell a long story.", usage=Reported(prompt_tokens=30, completion_tokens=6)))
    person, account = Person(allows=True), Account()
    result = _summarize(ServerSampling(_slot(llm_server), account, person), tmp_path, max_tokens=7)
    assert result.success is True, result.output
    assert json.loads(result.output) == {
        "text": "Bees tell a long story.",
        "model": "test-model",
        "stop_reason": "endTurn",
    }
    assert person.asked == [
        SamplingQuestion(
            server="py",
            model="openai/test-model",
            max_tokens=7,
            system_prompt="Summarize what the user sends in one line.",
            messages=(SampledMessage(role="user", text="A long story about bees."),),
            preferred_models=("claude-haiku",),
            context_ignored=True,
        )
    ]
    (request,) = llm_server.chat_requests
    assert request.json["max_tokens"] == 7
    assert "tools" not in request.json
    assert request.messages == [
        {"role": "system", "content": "Summarize what the user sends in one line."},
        {"role": "user", "content": "A long story about bees."},  # the server's text only: no hive conversation
    ]
    spent = account.spenders[SPENT]
    assert (spent.prompt_tokens, spent.completion_tokens, spent.calls) == (30, 6, 1)
    assert account.total == spent


def test_declined_the_server_gets_an_error_and_the_model_is_not_asked(llm_server: LLMServer, tmp_path: Path) -> None:
    person, account = Person(allows=False), Account()
    result = _summarize(ServerSampling(_slot(llm_server), account, person), tmp_path)
    assert result.success is False
    assert DECLINED in result.output, result.output
    assert len(person.asked) == 1
    assert llm_server.chat_requests == [] and account.total == Usage() and account.spenders == {}


def test_with_nobody_to_ask_every_request_is_refused_saying_so(llm_server: LLMServer, tmp_path: Path) -> None:
    result = _summarize(ServerSampling(_slot(llm_server), Account(), None), tmp_path)
    assert result.success is False
    assert NOBODY_TO_ASK in result.output, result.output
    assert llm_server.chat_requests == []


def test_a_stop_sequence_ends_the_answer_there(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Bees buzz. END and then more."))
    result = _summarize(ServerSampling(_slot(llm_server), Account(), Person(allows=True)), tmp_path, stop="END")
    assert result.success is True, result.output
    assert json.loads(result.output) == {"text": "Bees buzz. ", "model": "test-model", "stop_reason": "stopSequence"}


def test_an_answer_cut_at_max_tokens_goes_back_as_max_tokens(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Bees are", finish_reason="length"))
    account = Account()
    result = _summarize(ServerSampling(_slot(llm_server), account, Person(allows=True)), tmp_path, max_tokens=2)
    assert result.success is True, result.output
    assert json.loads(result.output) == {"text": "Bees are", "model": "test-model", "stop_reason": "maxTokens"}
    assert account.spenders[SPENT].calls == 1


def test_a_person_the_protocol_recognises() -> None:
    assert isinstance(Person(allows=True), SamplingAsker)
    assert not isinstance(object(), SamplingAsker)


@pytest.mark.parametrize("allows", [True, False])
def test_a_2025_era_server_everything_gets_the_answer_or_the_refusal(
    allows: bool, llm_server: LLMServer, tmp_path: Path
) -> None:
    require_reference_servers()
    llm_server.script(text("Sampled by hive."))
    account = Account()
    sampling = ServerSampling(_slot(llm_server), account, Person(allows=allows))
    everything = stdio("everything", EVERYTHING, "stdio")
    arguments = {"prompt": "say hi", "maxTokens": 11}
    result = asyncio.run(_call(everything, "mcp__everything__trigger-sampling-request", arguments, sampling, tmp_path))
    if allows:
        assert result.success is True, result.output
        assert "Sampled by hive." in result.output and '"stopReason": "endTurn"' in result.output
        assert llm_server.chat_requests[0].json["max_tokens"] == 11
        assert account.spenders["mcp:everything sampling"].calls == 1
    else:
        assert result.success is False
        assert DECLINED in result.output, result.output
        assert llm_server.chat_requests == []
