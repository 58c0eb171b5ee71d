"""A model call the person cancels: what stays in the history, what it cost, and a cancel that comes too late."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from engine.events import Event, ModelResponding, RunFinished, RunResult, TextDelta
from engine.run.cut_replies import CANCELLED_BEFORE_REPLY, CANCELLED_MARK
from engine.run.loop import AgentLoop, ToolEnvironment
from engine.tools.registry import ToolRegistry
from tests.support.agents import client_for, run_events
from tests.support.llm_server import LLMServer, RawReply, raw_sse, text

NEVER = 3600.0
"""A pause in the stream that no test waits out: the call is cancelled during it."""


def chunk(content: str) -> dict[str, Any]:
    choice = {"index": 0, "delta": {"role": "assistant", "content": content}, "finish_reason": None}
    return {"id": "c1", "object": "chat.completion.chunk", "model": "test-model", "choices": [choice]}


def first_part_then_a_pause() -> RawReply:
    """A stream whose first chunk carries "First part." and whose second never comes in time."""
    return raw_sse(chunk("First part. "), chunk("Never sent."), chunk_delay=NEVER)


def make_loop(server: LLMServer, tmp_path: Path) -> AgentLoop:
    """A loop on hive's own client (the REPL's for an OpenAI-compatible server), which streams each chunk as it comes."""
    return AgentLoop(
        client=client_for(server, direct=True),
        toolset=ToolRegistry([]),
        environment=ToolEnvironment(cwd=tmp_path, data_dir=tmp_path / ".hive-data"),
        instructions="You are a test agent.",
    )


def cancelled_at(loop: AgentLoop, prompt: str, moment: type[Event]) -> RunResult:
    """Run ``prompt`` and cancel it when the first ``moment`` event arrives (from a callback, as Ctrl-C does)."""

    async def scenario() -> RunResult:
        async for event in loop.run_streaming(prompt):
            if isinstance(event, moment):
                asyncio.get_running_loop().call_soon(loop.cancel)
            if isinstance(event, RunFinished):
                return event.result
        raise AssertionError("the run did not finish")

    return asyncio.run(asyncio.wait_for(scenario(), 30))


def sent_messages(server: LLMServer, index: int) -> list[tuple[str, str]]:
    """(role, content) of each message the ``index``-th request sent, the system prompt left out."""
    messages = server.chat_requests[index].json["messages"]
    return [(m["role"], m["content"]) for m in messages if m["role"] != "system"]


def test_a_cancelled_reply_stays_marked_and_the_next_request_follows_it(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(first_part_then_a_pause(), text("Answer two."))
    loop = make_loop(llm_server, tmp_path)
    result = cancelled_at(loop, "question one", TextDelta)
    assert result.exit_reason == "cancelled"
    _, after = run_events(loop, "question two")
    assert after.text == "Answer two."
    assert sent_messages(llm_server, 1) == [
        ("user", "question one"),
        ("assistant", f"First part.\n\n{CANCELLED_MARK}"),
        ("user", "question two"),
    ]


def test_a_request_cancelled_before_any_text_gets_a_marked_empty_reply(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Never sent.", first_chunk_delay=NEVER), text("Answer two."))
    loop = make_loop(llm_server, tmp_path)
    assert cancelled_at(loop, "question one", ModelResponding).exit_reason == "cancelled"
    run_events(loop, "question two")
    assert [role for role, _ in sent_messages(llm_server, 1)] == ["user", "assistant", "user"]
    assert sent_messages(llm_server, 1)[1] == ("assistant", CANCELLED_BEFORE_REPLY)


def test_a_cancelled_call_still_counts_estimated(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(first_part_then_a_pause())
    loop = make_loop(llm_server, tmp_path)
    usage = cancelled_at(loop, "question one " * 50, TextDelta).usage
    assert usage.estimated and usage.calls == 1
    assert usage.prompt_tokens is not None and usage.prompt_tokens > 50
    assert usage.completion_tokens is not None and usage.completion_tokens > 0
    assert loop.account.total == usage


def test_a_cancel_that_lands_after_the_run_ended_cancels_nothing(llm_server: LLMServer, tmp_path: Path) -> None:
    """Ctrl-C's handler can run just after the run ended (its signal was read in the run's last moment)."""
    llm_server.script(text("One."), text("Two."))
    loop = make_loop(llm_server, tmp_path)

    async def scenario() -> tuple[RunResult, RunResult]:
        first = await loop.run("question one")
        loop.cancel()  # too late: nothing runs
        await asyncio.sleep(0)  # the host goes on (e.g. shows its prompt): it must not be cancelled
        return first, await loop.run("question two")

    first, second = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert (first.exit_reason, second.exit_reason) == ("completed", "completed")
    assert second.text == "Two."
