"""The REPL sends the configured webhooks, as `hive run` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.llm_server import LLMServer, text
from tests.support.terminal import leave_repl, send_line, spawn_repl
from tests.support.webhook_receiver import WebhookReceiver, write_settings

SECRET = "whsec-repl"


def test_a_repl_session_sends_its_start_turn_and_finish(
    llm_server: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIVE_E2E_WEBHOOK_SECRET", SECRET)
    llm_server.script(text("Hello from the REPL."))
    with WebhookReceiver(SECRET) as receiver:
        write_settings(tmp_path, f"{receiver.url}/hive", "HIVE_E2E_WEBHOOK_SECRET")
        child = spawn_repl(llm_server, tmp_path)
        send_line(child, "say hello")
        child.expect("Hello from the REPL.")
        child.expect("›")
        assert leave_repl(child) == 0

    assert receiver.types() == ["session_started", "turn_completed", "session_finished"]
    assert all(d.signature_ok and d.fresh for d in receiver.deliveries)
