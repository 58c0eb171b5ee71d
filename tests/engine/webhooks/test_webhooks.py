"""Webhooks through a real session and a real receiver: signed, filtered, in the background, retried and logged."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from msgspec.structs import replace

from engine.config.loader import Overrides, SessionConfig, load_config
from engine.errors import ConfigError
from engine.events import ApprovalRequested, Event, RunFinished
from engine.policy.gate import ApprovalRequest, Decision
from engine.session_open import open_session
from engine.webhooks.options import WebhookEndpoint, WebhookEventType, WebhookOptions
from engine.webhooks.payloads import payload
from engine.webhooks.sender import WebhookSender
from engine.webhooks.signing import signed_headers, verify
from engine.webhooks.targets import Target
from tests.support.agents import collect
from tests.support.llm_server import LLMServer, auth_error, call, text, tool_calls
from tests.support.webhook_receiver import WebhookReceiver

SECRET = "whsec-test-1234"
SECRET_ENV = "HIVE_TEST_WEBHOOK_SECRET"


def config_with(server: LLMServer, cwd: Path, *endpoints: WebhookEndpoint, drain_timeout: float = 5.0) -> SessionConfig:
    overrides = Overrides(model="openai/test-model", api_base=server.base_url, api_key="sk-test")
    options = WebhookOptions(endpoints=list(endpoints), drain_timeout=drain_timeout, max_attempts=1)
    return replace(load_config(cwd, overrides, persist=False), webhooks=options)


def endpoint(receiver: WebhookReceiver, events: list[WebhookEventType] | None = None) -> WebhookEndpoint:
    return WebhookEndpoint(url=f"{receiver.url}/hooks", secret_env=SECRET_ENV, events=events)


class Denies:
    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(allowed=False, reason="not now")


async def session_run(config: SessionConfig, prompt: str, approver: Denies | None = None) -> list[Event]:
    session = await open_session(config, approver=approver)
    try:
        return await collect(session.run_streaming(prompt))
    finally:
        await session.close()


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)


def test_a_session_sends_signed_notifications_of_its_start_turns_and_finish(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("hello"))
    with WebhookReceiver(SECRET) as receiver:
        asyncio.run(session_run(config_with(llm_server, tmp_path, endpoint(receiver)), "hi"))

    assert receiver.types() == ["session_started", "turn_completed", "session_finished"]
    assert all(d.signature_ok and d.fresh for d in receiver.deliveries)
    assert all(d.request.path == "/hooks" and d.request.method == "POST" for d in receiver.deliveries)
    assert len({d.json["delivery_id"] for d in receiver.deliveries}) == 3
    turn = receiver.deliveries[1].json
    assert turn["schema_version"] == 1 and turn["data"]["index"] == 0 and turn["data"]["tool_calls"] == []
    assert receiver.deliveries[1].request.headers["x-hive-event"] == "turn_completed"
    assert receiver.deliveries[2].json["data"]["usage"]["calls"] == 1


def test_an_endpoint_gets_only_the_events_it_asked_for(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("execute_command", {"command": "touch made.txt"})), text("ok"), auth_error())
    with WebhookReceiver(SECRET) as everything, WebhookReceiver(SECRET) as some:
        config = config_with(
            llm_server, tmp_path, endpoint(everything), endpoint(some, ["approval_requested", "error"])
        )

        async def two_runs() -> list[Event]:
            session = await open_session(config, approver=Denies())
            try:
                return [*await collect(session.run_streaming("go")), *await collect(session.run_streaming("again"))]
            finally:
                await session.close()

        events = asyncio.run(two_runs())

    assert any(isinstance(e, ApprovalRequested) for e in events)
    assert some.types() == ["approval_requested", "error"]
    assert everything.types() == [
        "session_started",
        "approval_requested",
        "turn_completed",
        "turn_completed",
        "error",
        "session_finished",
    ]
    approval, error = (d.json["data"] for d in some.deliveries)
    assert (approval["tool"], approval["summary"]) == ("execute_command", "touch made.txt")
    assert error["category"] == "auth" and "OPENAI_API_KEY" in error["fix"]


def test_a_receiver_that_never_answers_does_not_hold_up_the_turn(
    llm_server: LLMServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.script(text("done"))
    with WebhookReceiver(SECRET, behaviour="hang") as receiver:
        config = config_with(llm_server, tmp_path, endpoint(receiver), drain_timeout=0.2)

        async def run_then_check() -> tuple[list[Event], int]:
            session = await open_session(config, approver=None)
            try:
                events = await collect(session.run_streaming("hi"))
                await asyncio.to_thread(receiver.arrived.wait, 10)
                return events, receiver.answered  # the run has finished; the first delivery still hangs
            finally:
                with caplog.at_level(logging.WARNING, logger="hive.webhooks"):
                    await session.close()

        events, answered_when_done = asyncio.run(run_then_check())

    assert isinstance(events[-1], RunFinished) and events[-1].result.text == "done"
    assert answered_when_done == 0 and receiver.types() == ["session_started"]
    assert "notification(s) not delivered at close" in caplog.text
    assert "/hooks" not in caplog.text and SECRET not in caplog.text


def test_a_receiver_that_is_down_does_not_fail_the_run(
    llm_server: LLMServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with WebhookReceiver(SECRET) as gone:
        url = f"{gone.url}/hooks"
    llm_server.script(text("done"))
    config = config_with(llm_server, tmp_path, WebhookEndpoint(url=url, secret_env=SECRET_ENV))
    with caplog.at_level(logging.WARNING, logger="hive.webhooks"):
        events = asyncio.run(session_run(config, "hi"))

    assert isinstance(events[-1], RunFinished) and events[-1].result.exit_reason == "completed"
    assert caplog.text.count("not delivered after 1 attempt(s): ConnectError") == 3


def sender_for(receiver: WebhookReceiver, attempts: int) -> WebhookSender:
    target = Target(url=receiver.url, secret=SECRET)
    return WebhookSender([target], timeout_s=5, max_attempts=attempts, drain_timeout_s=10, base_delay_s=0.01)


async def send_one(sender: WebhookSender) -> None:
    sender.start()
    sender.send(payload("error", "s1", {"message": "boom"}))
    await sender.close()


def test_a_failed_delivery_is_retried_with_the_same_id_and_a_fresh_signature(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with WebhookReceiver(SECRET, failures=2) as receiver, caplog.at_level(logging.WARNING, logger="hive.webhooks"):
        asyncio.run(send_one(sender_for(receiver, attempts=3)))

    assert len(receiver.deliveries) == 3 and receiver.answered == 3
    assert len({d.json["delivery_id"] for d in receiver.deliveries}) == 1
    assert all(d.signature_ok for d in receiver.deliveries)
    assert caplog.text == ""


def test_retries_give_up_after_max_attempts_and_log_it(caplog: pytest.LogCaptureFixture) -> None:
    with WebhookReceiver(SECRET, behaviour="fail") as receiver, caplog.at_level(logging.WARNING, "hive.webhooks"):
        asyncio.run(send_one(sender_for(receiver, attempts=3)))

    assert len(receiver.deliveries) == 3
    assert "error notification" in caplog.text and "not delivered after 3 attempt(s): HTTP 500" in caplog.text
    assert SECRET not in caplog.text


def test_verification_rejects_a_replay_a_changed_body_and_another_secret() -> None:
    body = json.dumps({"type": "error"}).encode()
    headers = signed_headers(SECRET, body, timestamp=1_700_000_000)
    stamp, signature = headers["X-Hive-Timestamp"], headers["X-Hive-Signature"]

    assert verify(SECRET, body, stamp, signature, now=1_700_000_100)
    assert not verify(SECRET, body, stamp, signature, now=1_700_000_301)  # replayed 5 minutes later
    assert not verify(SECRET, body + b" ", stamp, signature, now=1_700_000_100)
    assert not verify("another", body, stamp, signature, now=1_700_000_100)
    assert not verify(SECRET, body, "1700000001", signature, now=1_700_000_100)  # timestamp changed


@pytest.mark.parametrize("value", [None, "", "  "], ids=["unset", "empty", "blank"])
def test_a_secret_variable_that_is_unset_or_empty_is_a_config_error_at_start(
    llm_server: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    if value is None:
        monkeypatch.delenv(SECRET_ENV)
    else:
        monkeypatch.setenv(SECRET_ENV, value)
    config = config_with(llm_server, tmp_path, WebhookEndpoint(url="http://127.0.0.1:9/x", secret_env=SECRET_ENV))
    with pytest.raises(ConfigError, match=f"webhooks.endpoints.0.secret_env names {SECRET_ENV}"):
        asyncio.run(session_run(config, "hi"))
    assert llm_server.chat_requests == []
