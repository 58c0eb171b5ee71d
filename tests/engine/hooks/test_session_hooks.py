"""Hooks in a real session: settings.yaml on disk, real shell scripts, the scripted model server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from msgspec.structs import replace

from engine.config.loader import Overrides, SessionConfig, load_config
from engine.events import ApprovalRequested, ErrorEvent, Event, RunFinished
from engine.policy.gate import ApprovalRequest, Decision
from engine.sandbox.probe import bubblewrap_availability
from engine.sandbox.status import SandboxStatus
from engine.session import Session
from engine.session_open import open_session
from tests.support.agents import collect
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.processes import processes_with, unique_sleep
from tests.support.terminal import wait_for_process
from tests.support.trust import trust


def configured(server: LLMServer, project: Path, *hooks: dict[str, object], **overrides: object) -> SessionConfig:
    """A session's config with ``hooks`` in the project's settings.yaml (written as JSON, which YAML reads)."""
    settings = project / ".ironhive" / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": list(hooks)}, indent=2))
    trust(project)  # the project's own hooks run once the person trusts it
    choice = Overrides(model="openai/test-model", api_base=server.base_url, api_key="sk-test", **overrides)  # type: ignore[arg-type]
    return load_config(project, choice, persist=False)


class Allows:
    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return Decision(allowed=True)


async def session_run(config: SessionConfig, prompt: str, approver: object = None) -> list[Event]:
    session: Session = await open_session(config, approver=approver)  # type: ignore[arg-type]
    try:
        return await collect(session.run_streaming(prompt))
    finally:
        await session.close()


def finished(events: list[Event]) -> RunFinished:
    last = events[-1]
    assert isinstance(last, RunFinished)
    return last


def test_a_pre_tool_ask_goes_to_the_approver_with_the_hooks_reason(llm_server: LLMServer, tmp_path: Path) -> None:
    answer = '{"decision": "ask", "reason": "reads of notes are checked by a person"}'
    config = configured(
        llm_server, tmp_path, {"event": "pre_tool", "matcher": "read_file", "command": f"echo '{answer}'"}
    )
    (tmp_path / "notes.md").write_text("hello\n")
    llm_server.script(tool_calls(call("read_file", {"path": "notes.md"}, id="r")), text("done"))
    approver = Allows()

    events = asyncio.run(session_run(config, "go", approver))

    [request] = approver.requests
    assert request.reason.startswith("pre_tool hook `echo ") and request.reason.endswith(
        "asks: reads of notes are checked by a person"
    )
    assert any(isinstance(e, ApprovalRequested) for e in events)
    assert finished(events).result.tool_outcomes[0].success is True


def test_a_pre_tool_ask_with_nobody_to_ask_is_refused(llm_server: LLMServer, tmp_path: Path) -> None:
    config = configured(llm_server, tmp_path, {"event": "pre_tool", "command": """echo '{"decision": "ask"}'"""})
    (tmp_path / "notes.md").write_text("hello\n")
    llm_server.script(tool_calls(call("read_file", {"path": "notes.md"}, id="r")), text("done"))

    events = asyncio.run(session_run(config, "go"))

    outcome = finished(events).result.tool_outcomes[0]
    assert outcome.success is False and "nobody to approve" in outcome.output


def test_a_post_tool_note_reaches_the_model(llm_server: LLMServer, tmp_path: Path) -> None:
    note = """printf '{"note": "formatted %s"}' "$(sed 's/.*"path": "\\([^"]*\\)".*/\\1/')" """
    config = configured(llm_server, tmp_path, {"event": "post_tool", "matcher": "read_file", "command": note})
    (tmp_path / "notes.md").write_text("hello\n")
    llm_server.script(tool_calls(call("read_file", {"path": "notes.md"}, id="r")), text("done"))

    asyncio.run(session_run(config, "go"))

    sent = llm_server.chat_requests[1].messages[-1]["content"]
    assert "hello" in sent and sent.endswith("notes: formatted notes.md]")


def test_a_user_prompt_hook_blocks_the_prompt_before_any_request(llm_server: LLMServer, tmp_path: Path) -> None:
    script = "grep -q password && { echo 'no passwords in prompts' >&2; exit 2; }; exit 0"
    config = configured(llm_server, tmp_path, {"event": "user_prompt", "command": script})

    events = asyncio.run(session_run(config, "my password is hunter2"))

    result = finished(events).result
    assert result.exit_reason == "error" and "no passwords in prompts" in (result.error or "")
    assert any(isinstance(e, ErrorEvent) and "no passwords in prompts" in e.message for e in events)
    assert llm_server.chat_requests == []


def test_a_user_prompt_hook_adds_context_to_the_prompt(llm_server: LLMServer, tmp_path: Path) -> None:
    config = configured(
        llm_server, tmp_path, {"event": "user_prompt", "command": """echo '{"context": "on branch main"}'"""}
    )
    llm_server.script(text("ok"))

    asyncio.run(session_run(config, "what branch?"))

    sent = llm_server.chat_requests[0].messages[-1]["content"]
    assert sent.startswith("what branch?") and "on branch main" in sent


def test_a_stop_hook_sends_the_agent_on_once(llm_server: LLMServer, tmp_path: Path) -> None:
    script = (
        'grep -q \'"stop_hook_active": false\' && echo \'{"continue": true, "reason": "now run the tests"}\'; exit 0'
    )
    config = configured(llm_server, tmp_path, {"event": "stop", "command": script})
    llm_server.script(text("edited"), text("tests pass"))

    events = asyncio.run(session_run(config, "fix it"))

    assert [e for e in events if isinstance(e, RunFinished)] == [events[-1]]
    result = finished(events).result
    assert result.text == "tests pass" and len(result.turns) == 2
    assert llm_server.chat_requests[1].messages[-1] == {"role": "user", "content": "now run the tests"}
    assert len(llm_server.chat_requests) == 2


def test_session_start_and_end_hooks_run_and_a_failing_one_is_a_notice(llm_server: LLMServer, tmp_path: Path) -> None:
    log = "cat >> hook-log.jsonl; echo >> hook-log.jsonl"
    config = configured(
        llm_server,
        tmp_path,
        {"event": "session_start", "command": log},
        {"event": "session_start", "command": "exit 7"},
        {"event": "session_end", "command": log},
    )

    async def open_and_close() -> tuple[str, ...]:
        session = await open_session(config, approver=None)
        notices = session.notices
        await session.close()
        return notices

    notices = asyncio.run(open_and_close())

    assert notices == ("session_start hook `exit 7` failed: exited with status 7: no output",)
    events = [json.loads(line)["event"] for line in (tmp_path / "hook-log.jsonl").read_text().splitlines()]
    assert events == ["session_start", "session_end"]


def test_hooks_run_in_the_sandbox_without_secrets(
    llm_server: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    availability = bubblewrap_availability(network=False)
    if not availability.available:
        pytest.skip(f"bubblewrap cannot start here: {availability.reason}")
    monkeypatch.setenv("DEPLOY_API_KEY", "kept-out-of-hooks")
    outside = Path("/var/tmp") / f"hive-hook-escape-{tmp_path.name}"  # read-only inside (the home is a scratch one)
    config = configured(
        llm_server,
        tmp_path,
        {"event": "user_prompt", "command": "env > hook-env.txt"},
        {"event": "pre_tool", "command": f"touch {outside}"},
        sandbox="workspace-write",
    )
    (tmp_path / "notes.md").write_text("hello\n")
    llm_server.script(tool_calls(call("read_file", {"path": "notes.md"}, id="r")), text("done"))

    events = asyncio.run(session_run(config, "go"))

    assert not outside.exists()
    outcome = finished(events).result.tool_outcomes[0]
    assert outcome.success is False and "a failing pre_tool hook denies" in outcome.output
    environment = (tmp_path / "hook-env.txt").read_text()
    assert "HIVE_HOOK_EVENT=user_prompt" in environment and "kept-out-of-hooks" not in environment


def test_where_the_sandbox_cannot_start_no_hook_runs_and_pre_tool_denies(llm_server: LLMServer, tmp_path: Path) -> None:
    config = configured(
        llm_server,
        tmp_path,
        {"event": "user_prompt", "command": "touch ran.txt"},
        {"event": "pre_tool", "command": "true"},
        sandbox="workspace-write",
    )
    broken = replace(config, sandbox=SandboxStatus(options=config.sandbox.options, problem="no user namespaces"))
    (tmp_path / "notes.md").write_text("hello\n")
    llm_server.script(tool_calls(call("read_file", {"path": "notes.md"}, id="r")), text("done"))

    events = asyncio.run(session_run(broken, "go"))

    assert not (tmp_path / "ran.txt").exists()
    outcome = finished(events).result.tool_outcomes[0]
    assert outcome.success is False and "the sandbox cannot start here: no user namespaces" in outcome.output
    reported = [e.message for e in events if isinstance(e, ErrorEvent)]
    assert len(reported) == 2 and all("failed: not run" in m for m in reported)


def test_cancelling_while_a_user_prompt_hook_runs_stops_it_and_sends_nothing(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    sleep = unique_sleep()
    config = configured(llm_server, tmp_path, {"event": "user_prompt", "command": sleep})

    async def cancel_during_the_hook() -> list[Event]:
        session = await open_session(config, approver=None)
        try:
            running = asyncio.create_task(collect(session.run_streaming("hi")))
            await asyncio.to_thread(wait_for_process, sleep)
            session.cancel()
            return await asyncio.wait_for(running, 20)
        finally:
            await session.close()

    events = asyncio.run(cancel_during_the_hook())

    assert finished(events).result.exit_reason == "cancelled"
    assert llm_server.chat_requests == [] and not processes_with(sleep)
