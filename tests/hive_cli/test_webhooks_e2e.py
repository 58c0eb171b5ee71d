"""`hive run` sends the configured webhooks, and refuses to start when a named secret variable is missing."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text
from tests.support.webhook_receiver import WebhookReceiver, write_settings

SECRET = "whsec-e2e"
SECRET_ENV = "HIVE_E2E_WEBHOOK_SECRET"


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def test_hive_run_sends_signed_notifications(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("hello"))
    with WebhookReceiver(SECRET) as receiver:
        write_settings(
            tmp_path, f"{receiver.url}/hive", SECRET_ENV, "session_started, turn_completed, session_finished"
        )
        done = run_hive("run", "hi", *model_args(llm_server, tmp_path), HIVE_E2E_WEBHOOK_SECRET=SECRET)
    assert done.returncode == 0, done.stderr
    assert receiver.types() == ["session_started", "turn_completed", "session_finished"]
    assert all(d.signature_ok and d.fresh for d in receiver.deliveries)


def test_a_missing_secret_variable_exits_2_naming_it(llm_server: LLMServer, tmp_path: Path) -> None:
    write_settings(tmp_path, "http://127.0.0.1:9/hive", SECRET_ENV)
    done = run_hive("run", "hi", *model_args(llm_server, tmp_path))
    assert done.returncode == 2, done.stderr
    assert "webhooks.endpoints.0.secret_env names HIVE_E2E_WEBHOOK_SECRET, which is not set" in done.stderr
    assert "Traceback" not in done.stderr and llm_server.chat_requests == []
