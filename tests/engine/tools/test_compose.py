"""Composing toolsets: several as one, a lifecycle, and a tool list that changes mid-session."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine.events import ToolCall
from engine.tools.base import ToolContext, ToolResult
from engine.tools.compose import CombinedToolset
from engine.tools.registry import ToolRegistry, WrapperToolset
from tests.support.agents import RecordingTool, make_loop, run_events
from tests.support.llm_server import LLMServer, call, text, tool_calls


def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, data_dir=tmp_path / "data")


def run(toolset: object, name: str, tmp_path: Path, **arguments: object) -> ToolResult:
    return asyncio.run(toolset.call(ToolCall(id="c", name=name, arguments=dict(arguments)), ctx(tmp_path)))  # type: ignore[attr-defined]


class Lifecycle(ToolRegistry):
    """A registry that records when it is started and stopped (as an MCP server's toolset would)."""

    def __init__(self, name: str, log: list[str], *, fail_start: bool = False, fail_stop: bool = False) -> None:
        super().__init__([RecordingTool(name)])
        self.name, self.log, self.fail_start, self.fail_stop = name, log, fail_start, fail_stop

    async def start(self) -> None:
        self.log.append(f"start {self.name}")
        if self.fail_start:
            raise RuntimeError(f"{self.name} cannot start")

    async def stop(self) -> None:
        self.log.append(f"stop {self.name}")
        if self.fail_stop:
            raise RuntimeError(f"{self.name} cannot stop")


def test_an_earlier_member_hides_a_namesake_and_calls_go_to_the_member_that_offers_the_name(tmp_path: Path) -> None:
    first = ToolRegistry([RecordingTool("echo"), RecordingTool("a")])
    second = ToolRegistry([RecordingTool("echo", read_only=False), RecordingTool("b")])
    combined = CombinedToolset([first, second])

    assert [s.name for s in combined.specs()] == ["echo", "a", "b"]
    assert next(s for s in combined.specs() if s.name == "echo").read_only is True
    assert combined.shadowed() == ["echo"]
    assert run(combined, "b", tmp_path, text="hi").output == "echo: hi"
    assert second.specs() and run(combined, "echo", tmp_path, text="x").output == "echo: x"
    missing = run(combined, "nope", tmp_path)
    assert missing.success is False and "Available tools: a, b, echo" in missing.output


def test_members_start_in_order_stop_in_reverse_and_a_failed_start_stops_those_already_started() -> None:
    log: list[str] = []
    combined = CombinedToolset([Lifecycle("a", log), ToolRegistry(), WrapperToolset(Lifecycle("b", log))])
    asyncio.run(combined.start())
    asyncio.run(combined.stop())
    assert log == ["start a", "start b", "stop b", "stop a"]

    log.clear()
    broken = CombinedToolset([Lifecycle("a", log), Lifecycle("b", log, fail_start=True), Lifecycle("c", log)])
    with pytest.raises(RuntimeError, match="b cannot start"):
        asyncio.run(broken.start())
    assert log == ["start a", "start b", "stop a"]


def test_every_member_is_stopped_even_when_one_fails_to_stop() -> None:
    log: list[str] = []
    combined = CombinedToolset([Lifecycle("a", log), Lifecycle("b", log, fail_stop=True), Lifecycle("c", log)])
    with pytest.raises(RuntimeError, match="b cannot stop"):
        asyncio.run(combined.stop())
    assert log == ["stop c", "stop b", "stop a"]


def test_a_tool_list_that_changes_between_model_turns_is_offered_as_it_is_now(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    changing = ToolRegistry([RecordingTool("old")])
    heard: list[list[str]] = []
    changing.listen(lambda specs: heard.append([s.name for s in specs]))

    class SwapsTools(RecordingTool):
        async def execute(self, args: object, ctx: ToolContext) -> ToolResult:
            changing.replace_tools([RecordingTool("new")])  # as a server's tools/list_changed would
            return ToolResult("swapped")

    toolset = CombinedToolset([ToolRegistry([SwapsTools("swap")]), changing])
    llm_server.script(
        tool_calls(call("swap", {"text": "x"})),
        tool_calls(call("old", {"text": "gone?"}), call("new", {"text": "here"})),
        text("done"),
    )
    _, result = run_events(make_loop(llm_server, tmp_path, toolset=toolset), "go")

    offered = [[t["function"]["name"] for t in r.json["tools"]] for r in llm_server.chat_requests]
    assert offered[0] == ["swap", "old"]
    assert offered[1] == offered[2] == ["swap", "new"]
    assert heard == [["new"]]
    outputs = {o.call.name: o for o in result.tool_outcomes}
    assert outputs["old"].success is False and "Unknown tool" in outputs["old"].output
    assert outputs["new"].output == "echo: here"
