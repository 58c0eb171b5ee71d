"""Every recorded provider exchange in tests/fixtures/provider_cassettes replays through hive's model adapter.

Each file is served over loopback HTTP by `ReplayServer` and answered through the real `LiteLLMClient` (litellm,
the OpenAI SDK and httpx underneath), exchange by exchange, as an agent loop would drive it. OpenAI-style files send
their recorded `messages` and `tools` (the `.sse` files recorded no request: a short prompt and the called tools).
Anthropic files send the first recorded prompt in the OpenAI format, then continue with the previous reply
(`ModelReply.to_message()`) plus the recorded tool results, so the tool ids and signed thinking blocks hive hands
back are compared with what the real client sent. What each exchange must produce is in
`tests/support/replay_expectations.py`, written from the recorded bodies.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ProviderError
from engine.model.anthropic_client import AnthropicClient
from engine.model.chat_providers import chat_client_for
from engine.model.client_settings import ModelSettings
from engine.model.litellm_client import LiteLLMClient
from engine.model.openai_compat import OpenAICompatClient
from engine.model.providers import anthropic_endpoint, openai_compatible_endpoint
from engine.model.types import (
    CallOptions,
    Message,
    ModelClient,
    ModelReply,
    ModelRequest,
    StreamItem,
    StreamOpened,
    StreamReasoning,
    StreamRetry,
    StreamText,
)
from tests.support.cassettes import (
    CASSETTE_DIR,
    CassetteResponse,
    Exchange,
    ReplayServer,
    cassette_files,
    load_cassette,
)
from tests.support.replay_expectations import (
    EXPECTED,
    HAIKU_4_5,
    Call,
    Fails,
    Long,
    Recording,
    Redacted,
    Reply,
    Signed,
    Text,
    Tokens,
)

FILES = cassette_files() if CASSETTE_DIR.is_dir() else []
LONG_TAIL = ("gemini", "azure", "mistral")
"""Providers whose recordings replay as their own model strings (``gemini/...``) through hive's dialect client;
litellm replays Gemini's OpenAI-compatible recordings as ``openai/<model>`` at that endpoint (its ``gemini/``
route speaks the native Gemini API, which these recordings do not hold)."""
AZURE_VERSION = "2024-10-21"


@pytest.fixture(autouse=True)
def _azure_api_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both clients ask Azure for the version its recordings were made with (litellm's default is another)."""
    monkeypatch.setenv("AZURE_API_VERSION", AZURE_VERSION)


def recording_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


# --- building the requests hive sends ----------------------------------------------------------------------------


def function_tool(name: str, description: str = "", parameters: Mapping[str, Any] | None = None) -> dict[str, Any]:
    schema = dict(parameters) if parameters is not None else {"type": "object", "properties": {}}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}


def block_text(content: Any) -> str:
    """The text of an Anthropic content value: a string or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(block_text(block) for block in content)
    if isinstance(content, Mapping) and content.get("type") == "text":
        return str(content.get("text", ""))
    return ""


def tool_results(message: Any) -> list[Message]:
    """OpenAI tool messages for the tool_result blocks of a recorded Anthropic user turn."""
    content = message.get("content") if isinstance(message, Mapping) else None
    return [
        {"role": "tool", "tool_call_id": block["tool_use_id"], "content": block_text(block.get("content"))}
        for block in (content if isinstance(content, list) else [])
        if isinstance(block, Mapping) and block.get("type") == "tool_result"
    ]


def openai_prompt(recorded: Mapping[str, Any]) -> list[Message]:
    """The opening of a recorded Anthropic request in the OpenAI format: the system text, then the user's text."""
    messages: list[Message] = []
    if recorded.get("system"):
        messages.append({"role": "system", "content": block_text(recorded["system"])})
    for message in recorded.get("messages", []):
        if not isinstance(message, Mapping):  # error_400_invalid_request recorded a malformed message on purpose
            messages.append({"role": "user", "content": str(message)})
        elif message.get("role") == "user" and not tool_results(message):
            messages.append({"role": "user", "content": block_text(message.get("content"))})
        else:
            break  # later turns come from hive's own replies
    return messages


class Conversation:
    """The requests hive sends for one recording, built as an agent loop builds them."""

    def __init__(self, name: str, exchanges: Sequence[Exchange], expected: Recording) -> None:
        self.anthropic = name.startswith("anthropic/")
        self.provider = name.split("/", 1)[0]
        self.exchanges = exchanges
        first = exchanges[0].request.json or {}
        self.recorded_model = str(first.get("model") or "gpt-4o")  # the .sse files recorded no request
        thinking = first.get("thinking") if self.anthropic else None
        self.options = CallOptions(extra=(("thinking", thinking),) if thinking else ())
        self.history: list[Message] = openai_prompt(first) if self.anthropic else []
        called = dict.fromkeys(c.name for e in expected.exchanges if isinstance(e, Reply) for c in e.calls)
        self.called_tools = tuple(function_tool(name) for name in called)

    @property
    def model(self) -> str:
        if self.provider in LONG_TAIL:
            return f"{self.provider}/{self.recorded_model}"
        return ("anthropic/" if self.anthropic else "openai/") + self.recorded_model

    def route(self, server: ReplayServer) -> str:
        """The path both clients post to (the query string left out)."""
        if self.anthropic:
            return "/v1/messages"
        if self.provider == "gemini":
            return "/v1beta/openai/chat/completions"
        if self.provider == "azure":
            return f"/openai/deployments/{self.recorded_model}/chat/completions"
        return "/v1/chat/completions"

    def request(self, position: int, previous: ModelReply | None) -> ModelRequest:
        """The request answered by the recorded exchange at `position`."""
        recorded = self.exchanges[position].request.json
        if self.anthropic:
            assert isinstance(recorded, Mapping)
            results = tool_results(recorded["messages"][-1])
            if results and previous is not None:
                self.history += [previous.to_message(), *results]
            tools = tuple(
                function_tool(tool["name"], tool.get("description", ""), tool.get("input_schema"))
                for tool in recorded.get("tools") or ()
            )
            return ModelRequest(messages=tuple(self.history), tools=tools, options=self.options)
        if recorded is None:
            prompt: Message = {"role": "user", "content": "Use the tools."}
            return ModelRequest(messages=(prompt,), tools=self.called_tools, options=self.options)
        tools = tuple(recorded.get("tools") or ())
        return ModelRequest(messages=tuple(recorded["messages"]), tools=tools, options=self.options)


# --- replaying ---------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one `client.stream()` call yielded, and what it raised."""

    items: list[StreamItem] = field(default_factory=list)
    error: Exception | None = None

    @property
    def reply(self) -> ModelReply:
        assert self.error is None, f"expected a reply, got {self.error!r}"
        assert self.items and isinstance(self.items[-1], ModelReply), self.items[-3:]
        return self.items[-1]


@dataclass(frozen=True)
class Replayed:
    outcomes: list[Outcome]
    sent: list[tuple[str, Any]]
    """(path, JSON body) of every request the replay server received, in order."""
    unserved: int
    route: str
    """The path every request of the recording must go to."""


def client_for(
    conversation: Conversation, server: ReplayServer, recording: Recording, model: str, direct: bool = False
) -> ModelClient:
    """litellm's client, or (``direct``) hive's own client for the recording's protocol (Anthropic or OpenAI)."""
    api_base = server.url if conversation.anthropic or conversation.provider == "azure" else server.base_url
    if conversation.provider == "gemini":  # hive's gemini/ takes the API's root; litellm's openai/ the endpoint
        api_base = f"{server.url}/v1beta" if direct else f"{server.url}/v1beta/openai"
        model = model if direct else model.replace("gemini/", "openai/", 1)
    settings = ModelSettings(
        model=model,
        api_base=api_base,
        api_key="sk-test",
        timeout_s=10,
        retry=recording.retry,
        streaming=conversation.exchanges[0].response.is_sse,
    )
    if direct and conversation.anthropic:
        endpoint = anthropic_endpoint(settings)
        assert endpoint is not None, model
        return AnthropicClient(settings, endpoint)
    if direct:
        endpoint = openai_compatible_endpoint(settings)
        assert endpoint is not None, model
        client = chat_client_for(settings, endpoint)
        assert (type(client) is OpenAICompatClient) is (conversation.provider not in LONG_TAIL), client
        return client
    return LiteLLMClient(settings)


async def collect(client: ModelClient, request: ModelRequest) -> Outcome:
    outcome = Outcome()
    try:
        async for item in client.stream(request):
            outcome.items.append(item)
    except Exception as exc:  # the expectation decides whether an error was right
        outcome.error = exc
    return outcome


async def replay(
    name: str, exchanges: list[Exchange], recording: Recording, model: str | None = None, direct: bool = False
) -> Replayed:
    """Drive every expectation of `recording` through one client against a server holding `exchanges`."""
    conversation = Conversation(name, exchanges, recording)
    with ReplayServer(exchanges) as server:
        client = client_for(conversation, server, recording, model or conversation.model, direct)
        outcomes: list[Outcome] = []
        position = 0
        previous: ModelReply | None = None
        for expectation in recording.exchanges:
            outcome = await collect(client, conversation.request(position, previous))
            outcomes.append(outcome)
            previous = outcome.reply if outcome.error is None else None
            position += expectation.attempts if isinstance(expectation, Fails) else 1
        sent = [(request.path, request.json) for request in server.requests]
        return Replayed(outcomes, sent, server.remaining, conversation.route(server))


def replay_file(name: str, model: str | None = None, direct: bool = False) -> tuple[list[Exchange], Replayed]:
    exchanges = load_cassette(CASSETTE_DIR / name)
    return exchanges, asyncio.run(replay(name, exchanges, EXPECTED[name], model, direct))


CLIENTS = ("litellm", "direct")
"""Every recording replays through both clients: hive's own (OpenAI-compatible or Anthropic) must give what litellm gives."""


def with_clients(names: Sequence[Any], name_of: Any = str) -> list[Any]:
    """Each parameter set once per client."""
    params = []
    for value in names:
        name = name_of(value)
        kinds = CLIENTS
        values = value if isinstance(value, tuple) else (value,)
        params += [pytest.param(*values, kind, id=f"{name}-{kind}") for kind in kinds]
    return params


# --- checking ----------------------------------------------------------------------------------------------------


def check_text(where: str, actual: str, expected: Text) -> None:
    if isinstance(expected, Long):
        assert expected.matches(actual), f"{where}: {len(actual)} chars {actual[:60]!r} ... {actual[-60:]!r}"
    else:
        assert actual == expected, where


def check_calls(where: str, reply: ModelReply, expected: tuple[Call, ...]) -> None:
    actual = [(call.name, call.arguments, call.parse_error) for call in reply.tool_calls]
    assert actual == [(call.name, call.arguments, None) for call in expected], where
    for call, wanted in zip(reply.tool_calls, expected, strict=True):
        if wanted.id is None:
            assert call.id.startswith("call_") and len(call.id) > len("call_"), f"{where}: {call.id!r}"
        else:
            assert call.id == wanted.id, where
        assert json.loads(call.raw_arguments or "{}") == wanted.arguments, where
    assert len({call.id for call in reply.tool_calls}) == len(reply.tool_calls), f"{where}: ids must be distinct"


def check_tokens(where: str, reply: ModelReply, expected: Tokens) -> None:
    usage = reply.usage
    actual = (usage.prompt_tokens, usage.completion_tokens, usage.cached_read_tokens, usage.cache_write_tokens)
    assert actual == (expected.prompt, expected.completion, expected.cached_read, expected.cache_write), where
    assert usage.reasoning_tokens == expected.reasoning, where
    assert usage.calls == 1, where


def check_thinking(where: str, reply: ModelReply, expected: tuple[Signed | Redacted, ...]) -> None:
    fields = dict(reply.provider_fields)
    if not expected:
        assert "thinking_blocks" not in fields, where
        return
    blocks = fields["thinking_blocks"]
    assert len(blocks) == len(expected), f"{where}: {blocks}"
    for block, wanted in zip(blocks, expected, strict=True):
        if isinstance(wanted, Signed):
            assert block["type"] == "thinking", where
            assert block["thinking"] == reply.reasoning, where
            assert wanted.signature.matches(block["signature"]), f"{where}: signature {block['signature'][:40]!r}"
        else:
            assert block["type"] == "redacted_thinking", where
            assert wanted.data.matches(block["data"]), f"{where}: data {block['data'][:40]!r}"
    assert reply.to_message()["thinking_blocks"] == blocks, f"{where}: the blocks must go back with the reply"


def check_reply(where: str, outcome: Outcome, expected: Reply, direct: bool = False) -> None:
    reply = outcome.reply
    opened, *deltas = outcome.items[:-1]
    assert isinstance(opened, StreamOpened), f"{where}: the answer's start is announced first: {opened!r}"
    assert all(isinstance(item, StreamText | StreamReasoning) for item in deltas), where
    assert "".join(i.text for i in deltas if isinstance(i, StreamText)) == reply.text, where
    assert "".join(i.text for i in deltas if isinstance(i, StreamReasoning)) == reply.reasoning, where
    check_text(f"{where} text", reply.text, expected.text)
    check_text(f"{where} reasoning", reply.reasoning, expected.reasoning)
    assert reply.finish_reason == expected.finish, where
    check_calls(where, reply, expected.calls)
    check_tokens(where, reply, expected.tokens_for(direct))
    cost = expected.cost_for(direct)
    if cost is None:
        assert reply.usage.cost_usd is None, f"{where}: {reply.usage.cost_usd}"
    else:
        assert reply.usage.cost_usd == pytest.approx(cost, rel=1e-9, abs=1e-12), where
    check_thinking(where, reply, expected.thinking)


def check_failure(where: str, outcome: Outcome, expected: Fails, recording: Recording, direct: bool = False) -> None:
    error = outcome.error
    assert isinstance(error, ProviderError), f"{where}: {error!r}"
    message = str(error)
    assert "\n" not in message, f"{where}: {message!r}"
    assert expected.message in message, f"{where}: {message!r}"
    status = expected.status_for(direct)
    assert (error.category, error.status_code) == (expected.category, status), f"{where}: {message!r}"
    assert error.after_output is expected.after_output, where
    assert error.retry_after_s == expected.retry_after_s, where
    retries = [item for item in outcome.items if isinstance(item, StreamRetry)]
    assert [retry.attempt for retry in retries] == list(range(1, expected.attempts)), where
    for retry in retries:
        assert retry.category == expected.category, where
        assert 0 < retry.delay_s <= recording.retry.max_delay_s * 1.25, f"{where}: waited {retry.delay_s}s"
    streamed = "".join(item.text for item in outcome.items if isinstance(item, StreamReasoning))
    assert streamed == expected.streamed_reasoning, where
    assert not any(isinstance(item, StreamText | ModelReply) for item in outcome.items), where


def last_turn(messages: Sequence[Any], role: str) -> list[dict[str, Any]]:
    """The content blocks of the last `role` turn of an Anthropic request (a string becomes one text block)."""
    turn = next(m for m in reversed(messages) if isinstance(m, Mapping) and m.get("role") == role)
    content = turn["content"]
    return list(content) if isinstance(content, list) else [{"type": "text", "text": content}]


def tool_result_blocks(messages: Sequence[Any]) -> list[tuple[str, str]]:
    return [
        (block["tool_use_id"], block_text(block["content"]))
        for block in last_turn(messages, "user")
        if block["type"] == "tool_result"
    ]


def recorded_response_id(response: CassetteResponse) -> str | None:
    """The id the provider gave the recorded response: chat's ``id``, Anthropic's ``message.id``, Responses' ``id``."""
    text = response.content.decode()
    if not response.is_sse:
        body = json.loads(text)
        return body.get("id") if isinstance(body, dict) else None
    for line in text.splitlines():
        data = line[len("data:") :].strip() if line.startswith("data:") else ""
        if data and data != "[DONE]":
            event = json.loads(data)
            found = event.get("id") or (event.get("message") or {}).get("id") or (event.get("response") or {}).get("id")
            if found:
                return str(found)
    return None


LITELLM_OWN_IDS = (
    "anthropic/",
    "openai_compatible/ollama_cloud_nonstream_tool_calls.yaml",
    "openai_compatible/ollama_local_nonstream_structured_output.yaml",
)
"""Recordings whose id litellm replaces with one of its own (``chatcmpl-<uuid>``): it drops Anthropic's
``message.id``, and these non-streamed replies' ids. hive's own clients carry the provider's id for them."""


def check_response_id(where: str, reply: ModelReply, response: CassetteResponse, *, litellm: bool) -> None:
    """The reply carries the id the provider gave its response (litellm: its own where it drops the provider's)."""
    wire_id = recorded_response_id(response)
    assert wire_id, f"{where}: the recording has no id"
    if litellm and where.startswith(LITELLM_OWN_IDS):
        assert reply.response_id and reply.response_id.startswith("chatcmpl-"), f"{where}: {reply.response_id!r}"
        assert reply.response_id != wire_id, where
    else:
        assert reply.response_id == wire_id, f"{where}: {reply.response_id!r}"


# --- the tests ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "client"), with_clients(FILES, recording_id))
def test_each_recorded_exchange_comes_out_as_the_reply_or_error_its_recording_holds(path: Path, client: str) -> None:
    name = recording_id(path)
    recording = EXPECTED[name]
    exchanges, replayed = replay_file(name, direct=client == "direct")

    assert replayed.unserved == 0, f"{name}: {replayed.unserved} recorded exchanges were never requested"
    assert [path.split("?")[0] for path, _ in replayed.sent] == [replayed.route] * len(exchanges)
    if name.startswith("azure/"):
        assert all(path.endswith(f"?api-version={AZURE_VERSION}") for path, _ in replayed.sent), replayed.sent
    position = 0
    for number, (outcome, expectation) in enumerate(zip(replayed.outcomes, recording.exchanges, strict=True)):
        where = f"{name} exchange {number}"
        if isinstance(expectation, Reply):
            check_reply(where, outcome, expectation, direct=client == "direct")
            check_response_id(where, outcome.reply, exchanges[position].response, litellm=client == "litellm")
        else:
            check_failure(where, outcome, expectation, recording, direct=client == "direct")
        position += expectation.attempts if isinstance(expectation, Fails) else 1


@pytest.mark.parametrize(
    ("name", "client"),
    with_clients(
        [
            "anthropic/nonstream_parallel_tool_use.yaml",
            "anthropic/stream_parallel_tool_use.yaml",
            "anthropic/stream_thinking_tool_use_round_trip.yaml",
        ]
    ),
)
def test_an_anthropic_reply_sent_back_reaches_the_server_as_the_real_client_sent_it(name: str, client: str) -> None:
    exchanges, replayed = replay_file(name, direct=client == "direct")
    recorded, (_, sent) = exchanges[1].request.json, replayed.sent[1]
    # Text, signed thinking (signature intact, litellm's "index" dropped) and tool_use blocks, in the same order.
    assert last_turn(sent["messages"], "assistant") == last_turn(recorded["messages"], "assistant")
    assert tool_result_blocks(sent["messages"]) == tool_result_blocks(recorded["messages"])
    assert sent.get("thinking") == recorded.get("thinking")


@pytest.mark.parametrize("client", CLIENTS)
def test_redacted_thinking_blocks_go_back_to_the_server_unchanged_before_the_text(client: str) -> None:
    name = "anthropic/stream_redacted_thinking.yaml"
    (exchange,) = load_cassette(CASSETTE_DIR / name)
    expected = EXPECTED[name].exchanges[0]
    assert isinstance(expected, Reply)

    async def send_the_reply_back() -> Any:
        conversation = Conversation(name, [exchange], EXPECTED[name])
        with ReplayServer([exchange, exchange]) as server:
            model = client_for(conversation, server, EXPECTED[name], conversation.model, client == "direct")
            first = await collect(model, conversation.request(0, None))
            history = (*conversation.history, first.reply.to_message(), {"role": "user", "content": "Go on."})
            await collect(model, ModelRequest(messages=history, options=conversation.options))
            return server.requests[1].json

    sent = asyncio.run(send_the_reply_back())
    blocks = last_turn(sent["messages"], "assistant")
    assert [block["type"] for block in blocks] == ["redacted_thinking", "redacted_thinking", "text"]
    for block, wanted in zip(blocks[:2], expected.thinking, strict=True):
        assert isinstance(wanted, Redacted) and wanted.data.matches(block["data"])
    assert isinstance(expected.text, Long) and expected.text.matches(blocks[2]["text"])
    assert sent["thinking"] == {"budget_tokens": 1024, "type": "enabled"}


@pytest.mark.parametrize("client", CLIENTS)
def test_a_reply_with_only_redacted_thinking_does_not_claim_zero_reasoning_tokens(client: str) -> None:
    _, replayed = replay_file("anthropic/stream_redacted_thinking.yaml", direct=client == "direct")
    assert replayed.outcomes[0].reply.usage.reasoning_tokens is None


@pytest.mark.parametrize("client", CLIENTS)
def test_a_priced_anthropic_model_pays_the_cache_rates_for_recorded_cache_writes_and_reads(client: str) -> None:
    # The recording's claude-3-5-sonnet-20240620 is not in litellm's table; ask for claude-haiku-4-5 instead.
    name, model = "anthropic/stream_cache_write_then_read.yaml", "anthropic/claude-haiku-4-5"
    _, replayed = replay_file(name, model=model, direct=client == "direct")
    write, read = (outcome.reply.usage for outcome in replayed.outcomes)
    assert write.cost_usd == pytest.approx(HAIKU_4_5.cost(4, 201, cache_write=1165), rel=1e-9)
    assert read.cost_usd == pytest.approx(HAIKU_4_5.cost(4, 221, cache_read=1165), rel=1e-9)


FAILURES = [
    (name, number)
    for name, recording in EXPECTED.items()
    for number, expectation in enumerate(recording.exchanges)
    if isinstance(expectation, Fails)
]


@pytest.mark.parametrize(("name", "number", "client"), with_clients(FAILURES, lambda failure: failure[0]))
def test_a_provider_error_reads_as_hives_hint_then_the_providers_own_words(name: str, number: int, client: str) -> None:
    expected = EXPECTED[name].exchanges[number]
    assert isinstance(expected, Fails)
    _, replayed = replay_file(name, direct=client == "direct")
    message = str(replayed.outcomes[number].error)
    assert message.endswith(f"): {expected.message}"), message
    assert "litellm" not in message.lower() and "Exception - " not in message and '{"' not in message, message


def test_every_recording_on_disk_has_expectations_for_each_of_its_exchanges() -> None:
    on_disk = {recording_id(path) for path in FILES}
    assert on_disk == set(EXPECTED), (
        f"without expectations: {sorted(on_disk - set(EXPECTED))}; without a file: {sorted(set(EXPECTED) - on_disk)}"
    )
    for path in FILES:
        assert EXPECTED[recording_id(path)].consumed == len(load_cassette(path)), recording_id(path)
    assert (len(FILES), sum(len(load_cassette(path)) for path in FILES)) == (43, 62)
