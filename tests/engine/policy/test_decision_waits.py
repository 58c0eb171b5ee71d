"""A person's thinking time is a call's wait, never its run time: outcomes, nested calls and the usage report."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from msgspec import Struct

from engine.events import ToolCall, ToolOutcome
from engine.policy.compose import guarded_toolset
from engine.policy.config import default_permissions
from engine.policy.gate import ApprovalRequest, ApproveEverything, Approver, Decision
from engine.policy.modes import ModeManager
from engine.redaction.scan import default_rules
from engine.run.loop import AgentLoop, ToolEnvironment
from engine.tools.base import ArgsTool, ToolContext, ToolResult, Toolset
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry
from engine.tracking import Tracker, call_tool
from tests.support.agents import client_for, run_events
from tests.support.llm_server import LLMServer, call, text, tool_calls

THINKING_S = 1.0
"""How long the person thinks: a wait that counted as run time would make a run time at least this long."""


@pytest.fixture(autouse=True)
def redaction_rules_loaded() -> None:
    """The secret redaction builds its rules at a process's first tool result (0.1-0.3 s, in that call's run
    time); built before, a call's run time here is the tool's own, well under the person's thinking time."""
    default_rules()


class SlowPerson:
    """Answers yes after thinking for a while, as a person at the terminal does."""

    asks_a_person = True

    async def decide(self, request: ApprovalRequest) -> Decision:
        await asyncio.sleep(THINKING_S)  # the person's pause is the quantity under test
        return Decision(allowed=True, reason="allowed once by the user")


class NoArgs(Struct):
    pass


class WritesThroughTheGate(ArgsTool[NoArgs]):
    """A tool that makes a write_file call of its own, through the gated toolset, as a nested call."""

    name = "outer"
    description = "Write a note through the gate."
    args_model = NoArgs

    def __init__(self) -> None:
        self.toolset: Toolset | None = None

    async def execute(self, args: NoArgs, ctx: ToolContext) -> ToolResult:
        assert self.toolset is not None
        inner = ToolCall(id="inner", name="write_file", arguments={"path": "note.md", "content": "x\n"})
        return await call_tool(self.toolset, inner, ctx)


def tracked_loop(server: LLMServer, tmp_path: Path, approver: Approver, outer: WritesThroughTheGate) -> AgentLoop:
    registry = ToolRegistry([*builtin_tools(), outer])
    toolset = guarded_toolset(registry, default_permissions(), approver, ModeManager())
    outer.toolset = toolset
    return AgentLoop(
        client=client_for(server),
        toolset=toolset,
        environment=ToolEnvironment(cwd=tmp_path, data_dir=tmp_path / ".hive-data"),
        instructions="You are a test agent.",
        hooks=Tracker("openai/test-model"),
    )


def test_the_wait_for_an_approval_is_apart_from_the_run_time(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("write_file", {"path": "a.md", "content": "a\n"}, id="w")), text("done"))
    _, result = run_events(tracked_loop(llm_server, tmp_path, SlowPerson(), WritesThroughTheGate()), "write")
    (outcome,) = result.tool_outcomes
    assert outcome.success is True
    assert outcome.waited_s >= THINKING_S
    assert outcome.duration_s < THINKING_S
    assert result.report is not None
    (reported,) = result.report.tool_calls
    assert reported.waited_s == outcome.waited_s and reported.duration_s < THINKING_S
    assert reported.to_dict()["waited_s"] >= THINKING_S


def test_a_nested_call_waits_and_its_wait_is_not_run_time_of_the_call_around_it(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(tool_calls(call("outer", {}, id="o")), text("done"))
    events, result = run_events(tracked_loop(llm_server, tmp_path, SlowPerson(), WritesThroughTheGate()), "write")
    outcomes = {e.outcome.call.id: e.outcome for e in events if e.kind == "tool_call_finished"}
    inner, outer = outcomes["inner"], outcomes["o"]
    assert (tmp_path / "note.md").read_text() == "x\n"
    assert inner.waited_s >= THINKING_S and outer.waited_s >= inner.waited_s
    assert outer.duration_s < THINKING_S and inner.duration_s < THINKING_S
    assert result.report is not None and result.report.tool_calls[0].children[0].waited_s == inner.waited_s


def test_nobody_waits_when_no_person_is_asked(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("write_file", {"path": "a.md", "content": "a\n"}, id="w")), text("done"))
    _, result = run_events(tracked_loop(llm_server, tmp_path, ApproveEverything(), WritesThroughTheGate()), "write")
    outcome: ToolOutcome = result.tool_outcomes[0]
    assert outcome.success is True and outcome.waited_s == 0.0
