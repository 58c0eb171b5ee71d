"""A host's own recovery table, through the real loop, clients and HTTP: what it retries, resumes and says.

And a loop given only a model: a plain chat, with no toolset and no environment."""

from __future__ import annotations

import asyncio
from pathlib import Path

from msgspec.structs import replace

from engine.config.loader import Overrides, load_config
from engine.events import Retrying, RunFinished
from engine.run.loop import AgentLoop, LoopOptions
from engine.run.recovery import HIVE_RECOVERIES, Recoveries, Recovery
from engine.session_open import open_session
from tests.support.agents import FAST_RETRY, client_for, collect, run_events
from tests.support.llm_server import Completion, LLMServer, http_error, openai_error_body, server_error, text


def host_loop(server: LLMServer, recoveries: Recoveries) -> AgentLoop:
    """A loop whose client (its retries) and loop (compaction, resumes, words) both follow ``recoveries``."""
    client = client_for(server, direct=True, retry=replace(FAST_RETRY, recoveries=recoveries))
    return AgentLoop(client=client, options=LoopOptions(recoveries=recoveries))


GIVE_UP = Recovery(before_output="stop", after_output="stop", summary="our gateway failed", fix="page the on-call")
TRY_AGAIN = Recovery(before_output="backoff", after_output="stop", summary="flaky gateway", fix="wait")


def test_a_host_table_stops_at_a_failure_hive_would_retry_and_says_its_own_fix(llm_server: LLMServer) -> None:
    llm_server.script(server_error(503), text("never sent"))
    recoveries = HIVE_RECOVERIES.with_row("transient", GIVE_UP)
    loop = host_loop(llm_server, recoveries)

    events, result = run_events(loop, "hello")

    assert len(llm_server.chat_requests) == 1 and not [e for e in events if isinstance(e, Retrying)]
    assert result.exit_reason == "error" and result.fix == "page the on-call"


def test_a_host_table_retries_what_hive_would_stop_at(llm_server: LLMServer) -> None:
    refused = http_error(400, openai_error_body("gateway hiccup", "invalid_request_error"))
    llm_server.script(refused, text("Hello after one retry."))
    recoveries = Recoveries().with_row("bad_request", TRY_AGAIN)
    loop = host_loop(llm_server, recoveries)

    events, result = run_events(loop, "hello")

    assert [e.category for e in events if isinstance(e, Retrying)] == ["bad_request"]
    assert result.exit_reason == "completed" and result.text == "Hello after one retry."
    assert len(llm_server.chat_requests) == 2


def test_a_host_table_without_resumes_stops_at_a_cut_reply(llm_server: LLMServer) -> None:
    llm_server.script(Completion(text="The first half of an answer", cut_after=3, chunk_size=5), text("the rest"))
    recoveries = Recoveries(max_resumes_per_run=0)
    loop = host_loop(llm_server, recoveries)

    _, result = run_events(loop, "hello")

    assert result.exit_reason == "error" and len(llm_server.chat_requests) == 1


def test_a_session_takes_the_host_table_from_its_config(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(server_error(500), text("never sent"))
    overrides = Overrides(model="openai/test-model", api_base=llm_server.base_url, api_key="sk-test")
    config = replace(load_config(tmp_path, overrides), recoveries=HIVE_RECOVERIES.with_row("transient", GIVE_UP))

    async def run() -> RunFinished:
        session = await open_session(config, approver=None, title="t")
        try:
            return (await collect(session.run_streaming("hello")))[-1]  # type: ignore[return-value]
        finally:
            await session.close()

    finished = asyncio.run(run())

    assert len(llm_server.chat_requests) == 1
    assert finished.result.exit_reason == "error" and finished.result.fix == "page the on-call"


def test_a_loop_given_only_a_model_is_a_plain_chat(llm_server: LLMServer) -> None:
    llm_server.script(text("Just talking."))

    _, result = run_events(AgentLoop(client=client_for(llm_server, direct=True)), "hi")

    assert result.exit_reason == "completed" and result.text == "Just talking."
    assert "tools" not in llm_server.chat_requests[0].json
