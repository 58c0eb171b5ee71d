"""`hive run` sends the configured webhooks, and refuses to start when a named secret variable is missing."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text
from tests.support.webhook_receiver import WebhookReceiver

SECRET = "whsec-e2e"


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def settings(workdir: Path, url: str, events: str = "") -> None:
    (workdir / ".ironhive").mkdir(exist_ok=True)
    lines = ["webhooks:", "  endpoints:", f"    - url: {url}", "      secret_env: HIVE_E2E_WEBHOOK_SECRET"]
    if events:
        lines.append(f"      events: [{events}]")
    (workdir / ".ironhive" / "settings.yaml").write_text("\n".join(lines) + "\n")


def test_hive_run_sends_signed_notifications(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("hello"))
    with WebhookReceiver(SECRET) as receiver:
        settings(tmp_path, f"{receiver.url}/hive", "session_started, turn_completed, session_finished")
        done = run_hive("run", "hi", *model_args(llm_server, tmp_path), HIVE_E2E_WEBHOOK_SECRET=SECRET)
    assert done.returncode == 0, done.stderr
    assert receiver.types() == ["session_started", "turn_completed", "session_finished"]
    assert all(d.signature_ok and d.fresh for d in receiver.deliveries)


def test_a_missing_secret_variable_exits_2_naming_it(llm_server: LLMServer, tmp_path: Path) -> None:
    settings(tmp_path, "http://127.0.0.1:9/hive")
    done = run_hive("run", "hi", *model_args(llm_server, tmp_path))
    assert done.returncode == 2, done.stderr
    assert "webhooks.endpoints.0.secret_env names HIVE_E2E_WEBHOOK_SECRET, which is not set" in done.stderr
    assert "Traceback" not in done.stderr and llm_server.chat_requests == []
