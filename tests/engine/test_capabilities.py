"""A new capability plugs into a session through the ``Capability`` protocol alone: no other door is needed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from engine.capabilities import BuildContext, Capability, SessionView
from engine.config.loader import Overrides, load_config
from engine.events import Event, RunFinished, TurnRecord
from engine.instructions import InstructionContext
from engine.policy.gate import ApprovalRequest, Decision
from engine.run.loop import TurnObserver
from engine.session_open import open_session
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.registry import ToolRegistry
from tests.support.agents import collect
from tests.support.llm_server import LLMServer, call, text, tool_calls


class ClockTool:
    """Tells the model a fixed time (a tool only this capability offers)."""

    spec = ToolSpec(name="clock_time", description="The time now.", parameters={"type": "object"}, read_only=True)

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("12:00")


class Clock(Capability):
    """Offers ``clock_time``, says so in the system prompt, and notes every turn, event, start and stop."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def toolset(self, context: BuildContext) -> Toolset | None:
        return ToolRegistry([ClockTool()])

    def contribute(self, context: InstructionContext) -> str | None:
        return "# Clock\nAsk clock_time for the time."

    def turn_observers(self) -> tuple[TurnObserver, ...]:
        return (self.turn,)

    def turn(self, record: TurnRecord) -> str | None:
        self.log.append(f"turn {record.index}: {[c.name for c in record.tool_calls]}")
        return None

    def observe(self, event: Event, session: SessionView) -> None:
        if isinstance(event, RunFinished):
            self.log.append(f"finished: {event.result.text}")

    async def start(self, session: SessionView) -> tuple[str, ...]:
        self.log.append(f"start {session.model}")
        return ("the clock is fixed at noon",)

    async def stop(self, session: SessionView) -> None:
        self.log.append("stop")


class Allows:
    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(allowed=True)


def test_a_capability_adds_a_tool_and_an_instruction_and_sees_the_turns_through_the_protocol_alone(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    clock = Clock()
    overrides = Overrides(model="openai/test-model", api_base=llm_server.base_url, api_key="sk-test")
    config = load_config(tmp_path, overrides, persist=False)
    llm_server.script(tool_calls(call("clock_time", {})), text("It is noon."))

    async def body() -> list[Event]:
        session = await open_session(config, approver=Allows(), capabilities=(clock,))
        try:
            assert "the clock is fixed at noon" in session.notices
            return await collect(session.run_streaming("what time is it?"))
        finally:
            await session.close()

    events = asyncio.run(body())

    first = llm_server.chat_requests[0]
    assert "clock_time" in [tool["function"]["name"] for tool in first.json["tools"]]
    assert first.messages[0]["role"] == "system" and "Ask clock_time for the time." in first.messages[0]["content"]
    second = llm_server.chat_requests[1].messages
    assert [m["content"] for m in second if m["role"] == "tool"] == ["12:00"]
    final = events[-1]
    assert isinstance(final, RunFinished) and final.result.text == "It is noon."
    assert clock.log == [
        "start openai/test-model",
        "turn 0: ['clock_time']",
        "turn 1: []",
        "finished: It is noon.",
        "stop",
    ]
