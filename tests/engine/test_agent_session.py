"""The agent builder and the session around it: no side effects when building, one object for the host."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from engine.agent import build_agent, configured_capabilities
from engine.capabilities import BuildContext, Capability, Tools
from engine.config.loader import Overrides, SessionConfig, load_config
from engine.events import ApprovalRequested, Event, RunFinished, ToolCall
from engine.policy.gate import ApprovalRequest, Decision
from engine.session import Session
from engine.session_open import open_session
from engine.session_store import SessionStore
from engine.tools.base import ToolContext, ToolResult, Toolset
from engine.tools.compose import ToolsetWrapper
from engine.tools.registry import ToolRegistry, WrapperToolset
from tests.support.agents import collect
from tests.support.llm_server import LLMServer, call, text, tool_calls


def config_for(server: LLMServer, cwd: Path, *, persist: bool = False) -> SessionConfig:
    overrides = Overrides(model="openai/test-model", api_base=server.base_url, api_key="sk-test")
    return load_config(cwd, overrides, persist=persist)


def run(session: Session, prompt: str) -> list[Event]:
    return asyncio.run(collect(session.run_streaming(prompt)))


def open_now(config: SessionConfig, **kwargs: object) -> Session:
    return asyncio.run(open_session(config, **kwargs))  # type: ignore[arg-type]


def test_building_an_agent_writes_nothing_and_reads_no_settings(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    config = config_for(llm_server, tmp_path)
    settings = tmp_path / ".ironhive" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text("this is: [not valid\n")  # a sub-agent built now must not re-read it
    before = sorted(p for p in isolated_hive.rglob("*"))

    agent = build_agent(config, approver=None, data_dir=tmp_path / "out", agent_id="explore")
    llm_server.script(text("built"))
    events = asyncio.run(collect(agent.loop.run_streaming("hi")))

    assert isinstance(events[-1], RunFinished) and events[-1].result.text == "built"
    assert sorted(p for p in isolated_hive.rglob("*")) == before
    assert not (tmp_path / "out").exists()


class AllowsAsAPerson:
    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(allowed=True)


def test_every_event_of_a_named_agent_carries_its_id(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello\n")
    agent = build_agent(
        config_for(llm_server, tmp_path), approver=AllowsAsAPerson(), data_dir=tmp_path / "out", agent_id="explore"
    )
    llm_server.script(
        tool_calls(call("read_file", {"path": "notes.md"}), call("write_file", {"path": "a.md", "content": "x"})),
        text("done"),
    )
    events = asyncio.run(collect(agent.loop.run_streaming("go")))
    kinds = {e.kind for e in events}
    assert {"approval_requested", "approval_resolved", "mode_changed", "tool_call_started", "text_delta"} <= kinds
    assert {e.agent for e in events} == {"explore"}


class Recorder(WrapperToolset):
    """Sits in the approved-call slot and notes every call that reaches it."""

    seen: list[str] = []

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        Recorder.seen.append(call.name + ":" + str(call.arguments.get("command", call.arguments.get("path", ""))))
        return await self.inner.call(call, ctx)


class RecordsApprovedCalls(Capability):
    def approved_call_wrappers(self, context: BuildContext) -> tuple[ToolsetWrapper, ...]:
        return (Recorder,)


class DeniesId:
    async def decide(self, request: ApprovalRequest) -> Decision:
        allowed = "id -u" not in str(request.call.arguments)
        return Decision(allowed=allowed, reason="" if allowed else "not that one")


def test_the_approved_call_slot_sees_exactly_the_calls_that_run_shell_commands_included(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    Recorder.seen = []
    (tmp_path / "notes.md").write_text("hello\n")
    config = config_for(llm_server, tmp_path)
    agent = build_agent(
        config,
        approver=DeniesId(),
        data_dir=tmp_path / "out",
        capabilities=[*configured_capabilities(config), RecordsApprovedCalls()],
    )
    llm_server.script(
        tool_calls(
            call("read_file", {"path": "notes.md"}),
            call("execute_command", {"command": "rm -rf /tmp/x"}),
            call("execute_command", {"command": "id -u"}),
            call("execute_command", {"command": "touch made.txt"}),
        ),
        text("done"),
    )
    events = asyncio.run(collect(agent.loop.run_streaming("go")))
    assert Recorder.seen == ["read_file:notes.md", "execute_command:touch made.txt"]
    assert sum(isinstance(e, ApprovalRequested) for e in events) == 2  # id -u (refused) and touch outside src/
    assert (tmp_path / "made.txt").exists()


class LifecycleProvider:
    """A provider whose toolset owns something (like an MCP server's connection)."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def toolset(self, context: BuildContext) -> Toolset | None:
        log = self.log

        class Owned(ToolRegistry):
            async def start(self) -> None:
                log.append("start")

            async def stop(self) -> None:
                log.append("stop")

        return Owned()


def test_a_session_starts_its_providers_toolsets_and_closing_twice_stops_them_once(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    provider = LifecycleProvider()
    session = open_now(config_for(llm_server, tmp_path), approver=None, capabilities=(Tools(provider),))
    assert provider.log == ["start"]
    asyncio.run(session.close())
    asyncio.run(session.close())
    assert provider.log == ["start", "stop"]


def test_the_host_switches_model_and_mode_through_the_session(llm_server: LLMServer, tmp_path: Path) -> None:
    session = open_now(config_for(llm_server, tmp_path), approver=None)
    llm_server.script(text("one"), text("two"))
    run(session, "first")
    session.switch_model("openai/other-model")
    session.set_mode("plan")
    run(session, "second")
    first, second = llm_server.chat_requests
    assert (first.json["model"], second.json["model"]) == ("test-model", "other-model")
    offered = [t["function"]["name"] for t in second.json["tools"]]
    assert "write_file" not in offered and "read_file" in offered
    assert (session.model, session.mode) == ("openai/other-model", "plan")
    assert session.usage.calls == 2
    rows = dict(session.context_breakdown().rows)
    assert rows["system prompt"] > 0 and rows["tool definitions"] > 0 and rows["your messages"] > 0
    asyncio.run(session.close())


def test_resuming_reopens_the_same_file_and_sees_the_history(llm_server: LLMServer, tmp_path: Path) -> None:
    config = config_for(llm_server, tmp_path, persist=True)
    llm_server.script(text("first answer"), text("second answer"))
    session = open_now(config, approver=None, title="t")
    run(session, "one")
    asyncio.run(session.close())
    assert session.id is not None
    loaded = SessionStore(Path(str(session.writer.path)).parent).load(session.id)  # type: ignore[union-attr]

    again = open_now(config, approver=None, resume=loaded)
    run(again, "two")
    asyncio.run(again.close())
    assert again.id == session.id
    sent = [m.get("content") for m in llm_server.chat_requests[1].messages[1:]]
    assert sent == ["one", "first answer", "two"]


def test_a_history_and_a_resumed_session_cannot_both_be_given(llm_server: LLMServer, tmp_path: Path) -> None:
    config = config_for(llm_server, tmp_path, persist=True)
    session = open_now(config, approver=None)
    session.agent.loop.conversation.append({"role": "user", "content": "x"})
    asyncio.run(session.close())
    assert session.id is not None
    loaded = SessionStore(Path(str(session.writer.path)).parent).load(session.id)  # type: ignore[union-attr]
    history: Sequence[dict[str, object]] = ({"role": "user", "content": "x"},)
    with pytest.raises(ValueError, match="either"):
        open_now(config, approver=None, resume=loaded, history=history)
