"""The context step: a policy prepares every request, and a refused overflow is shrunk and retried once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.config.loader import Overrides, load_config
from engine.context.management import ContextPolicyLayer
from engine.context.policy import PassThrough, PreparedRequest
from engine.conversation import SUMMARY_HEADER, Conversation
from engine.errors import ContextOverflowError
from engine.events import ContextCompacted, ErrorEvent, Event, RunFinished
from engine.model.types import Message
from engine.paths import user_data_dir
from engine.session import Session
from engine.session_open import open_session
from engine.session_store import SessionStore
from tests.support.agents import collect
from tests.support.llm_server import LLMServer, context_overflow, text


class KeepsTheLastMessage:
    """Compacts everything but the last message into a fixed summary; counts what it was asked."""

    def __init__(self) -> None:
        self.prepared: list[int] = []
        self.shrinks = 0

    def prepare(self, history: Sequence[Message], tools: Sequence[dict[str, Any]]) -> PreparedRequest:
        self.prepared.append(len(history))
        return PassThrough().prepare(history, tools)

    async def shrink(
        self, conversation: Conversation, error: ContextOverflowError, refused: PreparedRequest
    ) -> ContextCompacted | None:
        self.shrinks += 1
        through = len(conversation) - 1
        conversation.compact(through, "The user asked for a haiku earlier.", "overflow")
        return ContextCompacted(reason="overflow", summarised_messages=through, kept_messages=1)

    async def maintain(self, conversation: Conversation, request: PreparedRequest) -> ContextCompacted | None:
        return None


def session_with(server: LLMServer, cwd: Path, policy: KeepsTheLastMessage, **kwargs: Any) -> Session:
    overrides = Overrides(model="openai/test-model", api_base=server.base_url, api_key="sk-test")
    config = load_config(cwd, overrides)
    return asyncio.run(open_session(config, approver=None, capabilities=(ContextPolicyLayer(policy),), **kwargs))


def run(session: Session, prompt: str) -> list[Event]:
    return asyncio.run(collect(session.run_streaming(prompt)))


def test_an_overflow_is_compacted_retried_once_recorded_and_seen_again_on_resume(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    policy = KeepsTheLastMessage()
    session = session_with(llm_server, tmp_path, policy)
    llm_server.script(text("A haiku."), context_overflow(), text("Short now."), text("Third."))
    run(session, "write a haiku")
    events = run(session, "and another")

    assert [type(e).__name__ for e in events if isinstance(e, (ContextCompacted, ErrorEvent))] == ["ContextCompacted"]
    final = events[-1]
    assert isinstance(final, RunFinished) and final.result.text == "Short now."
    refused, retried = llm_server.chat_requests[1:3]
    assert [m["role"] for m in refused.messages] == ["system", "user", "assistant", "user"]
    assert [m["role"] for m in retried.messages] == ["system", "user", "user"]
    assert retried.messages[1]["content"].startswith(SUMMARY_HEADER) and "haiku" in retried.messages[1]["content"]
    assert retried.messages[2]["content"] == "and another"
    assert policy.shrinks == 1 and policy.prepared == [2, 4, 3]
    assert len(session.messages) == 4  # the history itself is never rewritten
    asyncio.run(session.close())

    assert session.id is not None
    loaded = SessionStore(user_data_dir() / "sessions").load(session.id)
    assert [(c.through, c.reason) for c in loaded.compactions] == [(2, "overflow")]
    resumed = session_with(llm_server, tmp_path, KeepsTheLastMessage(), resume=loaded)
    run(resumed, "one more")
    asyncio.run(resumed.close())
    contents = [m.get("content") for m in llm_server.chat_requests[3].messages[1:]]
    assert contents[0].startswith(SUMMARY_HEADER)
    assert contents[1:] == ["and another", "Short now.", "one more"]


def test_a_second_overflow_after_compacting_ends_the_run_with_the_error(llm_server: LLMServer, tmp_path: Path) -> None:
    policy = KeepsTheLastMessage()
    session = session_with(llm_server, tmp_path, policy)
    llm_server.script(text("A haiku."), context_overflow(), context_overflow())
    run(session, "write a haiku")
    events = run(session, "and another")
    final = events[-1]
    assert isinstance(final, RunFinished) and final.result.exit_reason == "error"
    assert any(isinstance(e, ErrorEvent) and e.category == "context_overflow" for e in events)
    assert policy.shrinks == 1
    asyncio.run(session.close())


def test_without_a_policy_that_can_shrink_an_overflow_ends_the_run(llm_server: LLMServer, tmp_path: Path) -> None:
    overrides = Overrides(model="openai/test-model", api_base=llm_server.base_url, api_key="sk-test")
    session = asyncio.run(open_session(load_config(tmp_path, overrides, persist=False), approver=None))
    llm_server.script(context_overflow(limit=16384, used=16400))  # the instructions and tools fit their share
    final = run(session, "hi")[-1]
    assert isinstance(final, RunFinished) and final.result.exit_reason == "error"
    assert len(llm_server.chat_requests) == 1


def test_a_compaction_must_keep_whole_tool_rounds() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    conversation = Conversation(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "x"},
        ]
    )
    for through in (0, 2, 4):
        try:
            conversation.compact(through, "s")
        except ValueError:
            continue
        raise AssertionError(f"compacting through {through} was accepted")
    conversation.compact(3, "s")
    assert conversation.view() == (conversation.view()[0],) and conversation.view()[0]["role"] == "user"
