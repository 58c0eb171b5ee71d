"""A person's thinking time is a call's wait, never its run time: outcomes, nested calls and the usage report.

Judged by the order of events, not by the machine's speed: the person's pause lies inside the call's wait,
and the call (its run time plus its wait) lies inside the run the test times around it. Both hold on any
machine; a pause counted as run time too would count twice and overflow the run.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from msgspec import Struct

from engine.events import Event, RunResult, ToolCall, ToolOutcome
from engine.policy.compose import guarded_toolset
from engine.policy.config import default_permissions
from engine.policy.gate import ApprovalRequest, ApproveEverything, Approver, Decision
from engine.policy.modes import ModeManager
from engine.run.loop import AgentLoop, ToolEnvironment
from engine.tools.base import ArgsTool, ToolContext, ToolResult, Toolset
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry
from engine.tracking import Tracker, call_tool
from tests.support.agents import client_for, run_events
from tests.support.llm_server import LLMServer, call, text, tool_calls

THINKING_S = 1.0
"""How long the person thinks: long beside the rest of a run, so a pause counted twice overflows it."""


class SlowPerson:
    """Answers yes after thinking for a while, as a person at the terminal does; ``pauses``: how long, each time."""

    asks_a_person = True

    def __init__(self) -> None:
        self.pauses: list[float] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        started = time.monotonic()
        await asyncio.sleep(THINKING_S)  # the person's pause is the quantity under test
        self.pauses.append(time.monotonic() - started)
        return Decision(allowed=True, reason="allowed once by the user")


def timed_run(loop: AgentLoop, task: str) -> tuple[list[Event], RunResult, float]:
    """The run's events and result, and how long it took as the test saw it (the window every call lies in)."""
    started = time.monotonic()
    events, result = run_events(loop, task)
    return events, result, time.monotonic() - started


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
    person = SlowPerson()
    _, result, window = timed_run(tracked_loop(llm_server, tmp_path, person, WritesThroughTheGate()), "write")
    (outcome,) = result.tool_outcomes
    assert outcome.success is True
    assert outcome.waited_s >= sum(person.pauses)
    assert outcome.duration_s + outcome.waited_s <= window, "the pause was counted as run time too"
    assert result.report is not None
    (reported,) = result.report.tool_calls
    assert (reported.waited_s, reported.duration_s) == (outcome.waited_s, outcome.duration_s)
    assert reported.to_dict()["waited_s"] == round(outcome.waited_s, 4)


def test_a_nested_call_waits_and_its_wait_is_not_run_time_of_the_call_around_it(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(tool_calls(call("outer", {}, id="o")), text("done"))
    person = SlowPerson()
    events, result, window = timed_run(tracked_loop(llm_server, tmp_path, person, WritesThroughTheGate()), "write")
    outcomes = {e.outcome.call.id: e.outcome for e in events if e.kind == "tool_call_finished"}
    inner, outer = outcomes["inner"], outcomes["o"]
    assert (tmp_path / "note.md").read_text() == "x\n"
    outer_question, inner_question = person.pauses
    assert inner.waited_s >= inner_question and outer.waited_s >= outer_question + inner.waited_s
    assert inner.duration_s + inner.waited_s <= outer.duration_s + outer.waited_s  # the inner call is inside
    assert outer.duration_s + outer.waited_s <= window, "the inner call's wait was counted as run time too"
    assert result.report is not None and result.report.tool_calls[0].children[0].waited_s == inner.waited_s


def test_nobody_waits_when_no_person_is_asked(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("write_file", {"path": "a.md", "content": "a\n"}, id="w")), text("done"))
    _, result = run_events(tracked_loop(llm_server, tmp_path, ApproveEverything(), WritesThroughTheGate()), "write")
    outcome: ToolOutcome = result.tool_outcomes[0]
    assert outcome.success is True and outcome.waited_s == 0.0
