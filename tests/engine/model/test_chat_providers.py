"""What hive's chat client does differently for Gemini, Mistral and Azure, on the wire of a loopback replay server."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from engine.model.chat_providers import chat_client_for, mistral_id
from engine.model.client_settings import ModelSettings
from engine.model.providers import openai_compatible_endpoint
from engine.model.types import ModelClient, ModelReply, ModelRequest
from tests.support.cassettes import CASSETTE_DIR, ReplayServer, load_cassette


def direct(model: str, api_base: str) -> ModelClient:
    settings = ModelSettings(model=model, api_base=api_base, api_key="sk-test", timeout_s=10)
    endpoint = openai_compatible_endpoint(settings)
    assert endpoint is not None
    return chat_client_for(settings, endpoint)


async def reply_of(client: ModelClient, request: ModelRequest) -> ModelReply:
    items = [item async for item in client.stream(request)]
    assert isinstance(items[-1], ModelReply), items
    return items[-1]


def round_trip(name: str, model: str, base: str, first: ModelRequest, result: str) -> tuple[ModelReply, Any]:
    """The recording's first reply, then the request hive sends with that reply and a tool result: what the server got."""

    async def run() -> tuple[ModelReply, Any]:
        with ReplayServer(load_cassette(CASSETTE_DIR / name)) as server:
            client = direct(model, server.url + base)
            reply = await reply_of(client, first)
            call = reply.tool_calls[0]
            tool = {"role": "tool", "tool_call_id": call.id, "content": result}
            await reply_of(
                client, ModelRequest(messages=(*first.messages, reply.to_message(), tool), tools=first.tools)
            )
            return reply, server.requests[1]

    return asyncio.run(run())


def recorded_request(name: str) -> ModelRequest:
    recorded = load_cassette(CASSETTE_DIR / name)[0].request.json
    return ModelRequest(messages=tuple(recorded["messages"]), tools=tuple(recorded["tools"]))


def test_a_gemini_thought_signature_goes_back_on_the_call_it_came_with() -> None:
    name = "gemini/stream_tool_call_thought_signature.yaml"
    reply, second = round_trip(name, "gemini/gemini-2.5-flash", "/v1beta", recorded_request(name), "sunny")

    (call,) = reply.tool_calls
    assert call.id.startswith("call_")  # Gemini sent "": hive gave the call an id
    (assistant,) = [m for m in second.json["messages"] if m["role"] == "assistant"]
    (sent_call,) = assistant["tool_calls"]
    recorded = load_cassette(CASSETTE_DIR / name)[1].request.json["messages"][1]["tool_calls"][0]
    assert sent_call["extra_content"] == recorded["extra_content"]
    assert sent_call["id"] == call.id and second.json["messages"][-1]["tool_call_id"] == call.id
    assert "tool_call_extra_content" not in assistant
    assert second.path == "/v1beta/openai/chat/completions"
    assert second.headers["authorization"] == "Bearer sk-test"


def test_the_signature_kept_for_gemini_never_reaches_another_server() -> None:
    name = "gemini/stream_tool_call_thought_signature.yaml"
    first = recorded_request(name)

    async def run() -> Any:
        with (
            ReplayServer(load_cassette(CASSETTE_DIR / name)) as gemini,
            ReplayServer(load_cassette(CASSETTE_DIR / "mistral/stream_text.yaml")) as other,
        ):
            reply = await reply_of(direct("gemini/gemini-2.5-flash", gemini.url + "/v1beta"), first)
            assert "tool_call_extra_content" in reply.to_message()
            tool = {"role": "tool", "tool_call_id": reply.tool_calls[0].id, "content": "sunny"}
            history = (*first.messages, reply.to_message(), tool)
            await reply_of(direct("openai/x", other.base_url), ModelRequest(messages=history))
            return other.requests[0].json

    sent = asyncio.run(run())
    (assistant,) = [m for m in sent["messages"] if m["role"] == "assistant"]
    assert "tool_call_extra_content" not in assistant and "extra_content" not in assistant["tool_calls"][0]


def test_mistral_gets_nine_character_ids_for_calls_another_model_made() -> None:
    name = "mistral/stream_tool_call_round_trip.yaml"
    openai_call = {"id": "call_ZR5UjqNEsG0C6WjVxH1n7kTq", "type": "function"}
    openai_call["function"] = {"name": "retrieve_payment_status", "arguments": '{"transaction_id": "T1000"}'}
    earlier = (
        {"role": "user", "content": "And T1000?"},
        {"role": "assistant", "content": "", "tool_calls": [openai_call]},
        {"role": "tool", "tool_call_id": openai_call["id"], "content": '{"status": "Unpaid"}'},
    )
    recorded = recorded_request(name)
    first = ModelRequest(messages=(*earlier, *recorded.messages), tools=recorded.tools)
    reply, second = round_trip(name, "mistral/mistral-large-latest", "/v1", first, '{"status": "Paid"}')

    messages = second.json["messages"]
    rewritten = mistral_id(openai_call["id"])
    assert len(rewritten) == 9 and rewritten.isalnum()
    assert messages[1]["tool_calls"][0]["id"] == rewritten and messages[2]["tool_call_id"] == rewritten
    assert reply.tool_calls[0].id == "D681PevKs"  # Mistral's own ids go back as they came
    assert messages[-2]["tool_calls"][0]["id"] == "D681PevKs" and messages[-1]["tool_call_id"] == "D681PevKs"
    assert "stream_options" not in second.json and second.json["stream"] is True
    assert second.headers["authorization"] == "Bearer sk-test"


def test_distinct_ids_stay_distinct_for_mistral() -> None:
    ids = [f"call_{n}" for n in range(2000)] + ["toolu_01A", "", "0"]
    assert len({mistral_id(i) for i in ids}) == len(ids)


@pytest.mark.parametrize(
    ("base", "version", "path"),
    [
        ("", None, "/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"),
        ("/openai", "2025-04-01-preview", "/openai/deployments/gpt-4o/chat/completions?api-version=2025-04-01-preview"),
        ("/openai/v1", None, "/openai/v1/chat/completions"),
    ],
)
def test_azure_is_asked_at_the_deployment_with_its_version_and_the_api_key_header(
    base: str, version: str | None, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if version:
        monkeypatch.setenv("AZURE_API_VERSION", version)
    name = "azure/stream_text_content_filter.yaml"

    async def run() -> Any:
        with ReplayServer(load_cassette(CASSETTE_DIR / name)) as server:
            reply = await reply_of(direct("azure/gpt-4o", server.url + base), recorded_request_without_tools(name))
            assert reply.text == "Yes, Azure OpenAI supports customer managed keys."
            return server.requests[0]

    sent = asyncio.run(run())
    assert sent.path == path
    assert sent.headers["api-key"] == "sk-test" and "authorization" not in sent.headers
    assert json.loads(sent.body)["model"] == "gpt-4o"


def recorded_request_without_tools(name: str) -> ModelRequest:
    recorded = load_cassette(CASSETTE_DIR / name)[0].request.json
    return ModelRequest(messages=tuple(recorded["messages"]))
