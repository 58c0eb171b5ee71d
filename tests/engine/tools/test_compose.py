"""Composing toolsets: several as one, a name prefix, a lifecycle, and a tool list that changes mid-session."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine.events import ToolCall
from engine.tools.base import ToolContext, ToolResult, ToolSpec
from engine.tools.compose import CombinedToolset, PrefixedToolset
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


def test_a_prefix_names_the_tools_marks_their_kind_and_routes_calls_back_to_the_plain_name(tmp_path: Path) -> None:
    server = PrefixedToolset(ToolRegistry([RecordingTool("echo")]), "mcp__docs__", kind="mcp", source="docs")
    (spec,) = server.specs()
    assert (spec.name, spec.kind, spec.source, spec.read_only) == ("mcp__docs__echo", "mcp", "docs", True)
    assert run(server, "mcp__docs__echo", tmp_path, text="hi").output == "echo: hi"
    for wrong in ("echo", "mcp__docs__other", "mcp__other__echo"):
        result = run(server, wrong, tmp_path, text="hi")
        assert result.success is False and "Unknown tool" in result.output


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

    toolset = CombinedToolset([ToolRegistry([SwapsTools("swap")]), PrefixedToolset(changing, "mcp__srv__")])
    llm_server.script(
        tool_calls(call("swap", {"text": "x"})),
        tool_calls(call("mcp__srv__old", {"text": "gone?"}), call("mcp__srv__new", {"text": "here"})),
        text("done"),
    )
    _, result = run_events(make_loop(llm_server, tmp_path, toolset=toolset), "go")

    offered = [[t["function"]["name"] for t in r.json["tools"]] for r in llm_server.chat_requests]
    assert offered[0] == ["swap", "mcp__srv__old"]
    assert offered[1] == offered[2] == ["swap", "mcp__srv__new"]
    assert heard == [["new"]]
    outputs = {o.call.name: o for o in result.tool_outcomes}
    assert outputs["mcp__srv__old"].success is False and "Unknown tool" in outputs["mcp__srv__old"].output
    assert outputs["mcp__srv__new"].output == "echo: here"


def test_specs_keep_their_declared_fields_through_the_prefix() -> None:
    declared = ToolRegistry(declared=[ToolSpec(name="ask_user", description="Ask.", parameters={"type": "object"})])
    (spec,) = PrefixedToolset(declared, "host__").specs()
    assert (spec.name, spec.declared_only, spec.kind) == ("host__ask_user", True, "tool")
