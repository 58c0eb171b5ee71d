"""The task ledger survives every compaction: the goal is quoted by hive, the earlier ledger goes to the summariser."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.context.compaction import CompactionLimit, Compactor, cut_point, fitting_cut_point
from engine.context.policy import PreparedRequest
from engine.context.window import Windows
from engine.conversation import Conversation
from engine.errors import ProviderError
from engine.model.types import Message
from tests.support.agents import FAST_RETRY, client_for
from tests.support.llm_server import LLMServer, Usage, server_error, text

GOAL = "Port the CLI from argparse to typer, keeping every flag."


def round_of(i: int) -> list[dict[str, Any]]:
    call = {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": f'{{"path": "f{i}.py"}}'}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{i}", "content": f"contents of f{i}.py"},
    ]


def test_a_second_compaction_keeps_the_goal_and_folds_in_the_first_ledger(llm_server: LLMServer) -> None:
    llm_server.script(text("Files touched:\n- f0.py read"), text("Files touched:\n- f0.py, f5.py read"))
    compactor = Compactor(lambda: client_for(llm_server, direct=True), keep_messages=4)
    conversation = Conversation([{"role": "user", "content": GOAL}])
    for i in range(5):
        for message in round_of(i):
            conversation.append(message)

    first = asyncio.run(compactor.compact(conversation, "overflow"))
    conversation.append({"role": "user", "content": "Also keep --verbose as an alias."})
    for i in range(5, 9):
        for message in round_of(i):
            conversation.append(message)
    second = asyncio.run(compactor.compact(conversation, "threshold"))

    assert first is not None and second is not None and second.summarised_messages > first.summarised_messages
    second_input = llm_server.chat_requests[1].messages[1]["content"]
    assert second_input.startswith("Earlier ledger:") and "- f0.py read" in second_input
    ledger = conversation.view()[0]["content"]
    assert f"> {GOAL}" in ledger and "> Also keep --verbose as an alias." in ledger
    assert "f0.py, f5.py read" in ledger
    assert conversation.view()[1]["role"] != "tool"


def test_the_cut_never_splits_a_tool_round() -> None:
    messages = [{"role": "user", "content": GOAL}, *round_of(0), *round_of(1)]
    assert cut_point(messages, 2) == 3  # messages[3] is the assistant call of round 1
    assert cut_point(messages, 1) == 3  # keeping only the result would split round 1
    assert cut_point(messages, 10) == 0


def test_the_kept_messages_are_cut_until_they_fit_without_splitting_a_round() -> None:
    def sized_round(i: int, size: int) -> list[Message]:
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
        return [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{i}", "content": "x" * size},
        ]

    messages: list[Message] = [{"role": "user", "content": "go"}, *sized_round(0, 10), *sized_round(1, 5000)]
    messages += sized_round(2, 10)
    small = lambda kept: sum(len(str(m.get("content") or "")) for m in kept) <= 100  # noqa: E731
    assert fitting_cut_point(messages, 1, small) == 5  # the big round goes into the ledger, the last one stays
    assert fitting_cut_point(messages, 1, lambda kept: not kept) == len(messages)
    assert fitting_cut_point(messages, 1, lambda kept: True) == 1


def test_the_limit_counts_what_each_request_adds_to_the_history_before_it() -> None:
    limit = CompactionLimit(lambda: "openai/test-model", 0.5, Windows(1_000))
    history: list[dict[str, Any]] = [{"role": "user", "content": GOAL}, *round_of(1)]
    assert not limit.reached(PreparedRequest(messages=tuple(history)))
    history.append({"role": "user", "content": "every flag " * 300})
    assert limit.reached(PreparedRequest(messages=tuple(history)))
    assert not limit.reached(PreparedRequest(messages=tuple(history[:3])))


def long_conversation() -> Conversation:
    conversation = Conversation([{"role": "user", "content": GOAL}])
    for i in range(5):
        for message in round_of(i):
            conversation.append(message)
    return conversation


def test_an_empty_summary_still_compacts_and_its_cost_is_reported(llm_server: LLMServer) -> None:
    llm_server.script(text("", usage=Usage(prompt_tokens=40, completion_tokens=0)))
    conversation = long_conversation()
    compacted = asyncio.run(Compactor(lambda: client_for(llm_server), keep_messages=4).compact(conversation, "manual"))
    assert compacted is not None and compacted.usage is not None and compacted.usage.prompt_tokens == 40
    ledger = conversation.view()[0]["content"]
    assert f"> {GOAL}" in ledger and ledger.endswith("Work so far:\n(no summary was written)")


def test_a_failed_summary_call_leaves_the_history_as_it_was(llm_server: LLMServer) -> None:
    llm_server.script(*[server_error(500, "the GPU caught fire")] * FAST_RETRY.max_attempts)
    conversation = long_conversation()
    before = tuple(conversation.messages)
    with pytest.raises(ProviderError, match="the GPU caught fire"):
        asyncio.run(Compactor(lambda: client_for(llm_server), keep_messages=4).compact(conversation, "manual"))
    assert tuple(conversation.messages) == before and not conversation.compactions
