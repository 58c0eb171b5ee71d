"""The retrieving toolset: MCP tools narrowed to the latest request once there are more than max_tools."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from engine.agent import BuiltinTools, build_agent
from engine.capabilities import BuildContext, Capability, Tools
from engine.config.loader import Overrides, load_config
from engine.context.management import ContextManagement
from engine.events import ToolCall
from engine.model.types import Message
from engine.retrieval.keywords import KeywordRetriever
from engine.retrieval.options import ToolRetrievalOptions
from engine.retrieval.toolset import RetrievingToolset, ToolRetrieval, latest_request, retriever_for, used_tools
from engine.tools.base import ArgsTool, ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.compose import CombinedToolset
from engine.tools.registry import ToolRegistry
from tests.support.agents import collect
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.trust import trust

SERVER_TOOLS = {
    "create_issue": "Create an issue in a repository.",
    "list_issues": "List the issues of a repository.",
    "merge_pull_request": "Merge a pull request.",
    "search_code": "Search code across repositories.",
    "get_weather": "Current weather for a city.",
}


class NoArgs(Struct):
    pass


class NamedTool(ArgsTool[NoArgs]):
    """A tool that answers with its own name."""

    args_model = NoArgs
    read_only = True

    def __init__(self, name: str, description: str) -> None:
        self.name = name  # type: ignore[misc]
        self.description = description  # type: ignore[misc]

    async def execute(self, args: NoArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(f"ran {self.name}")


class ServerTool(NamedTool):
    """A tool of the MCP server ``gh`` as hive offers it (``mcp__gh__{name}``, kind mcp), answering with its own name."""

    def __init__(self, name: str, description: str) -> None:
        super().__init__(f"mcp__gh__{name}", description)
        self.plain = name

    @functools.cached_property
    def spec(self) -> ToolSpec:
        return replace(super().spec, kind="mcp", source="gh")

    async def execute(self, args: NoArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(f"ran {self.plain}")


def server_toolset() -> Toolset:
    return ToolRegistry([ServerTool(name, description) for name, description in SERVER_TOOLS.items()])


def toolset(messages: list[Message], **options: Any) -> RetrievingToolset:
    local = ToolRegistry([NamedTool("read_file", "Read a file.")])
    settings = ToolRetrievalOptions(**{"max_tools": 2, "min_scored_slots": 1, **options})
    return RetrievingToolset(CombinedToolset([local, server_toolset()]), settings, lambda: messages, KeywordRetriever())


def offered(tools: Toolset) -> list[str]:
    return [spec.name for spec in tools.specs()]


def user(content: Any) -> Message:
    return {"role": "user", "content": content}


def assistant_calling(name: str) -> Message:
    function = {"name": name, "arguments": "{}"}
    return {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": function}]}


def test_nothing_is_filtered_while_there_are_at_most_max_tools_mcp_tools() -> None:
    tools = toolset([user("weather please")], max_tools=5)
    assert offered(tools) == ["read_file", *(f"mcp__gh__{name}" for name in SERVER_TOOLS)]


def test_beyond_max_tools_only_the_fitting_mcp_tools_are_offered_and_the_others_stay() -> None:
    tools = toolset([user("first"), {"role": "assistant", "content": "ok"}, user("list the open issues")])
    # list_issues: 0.75 * 2/3 (gh unmatched) + 0.25 * 2/3; create_issue: 0.75 * 1/3 ("issue" in "issues") < 0.3
    assert offered(tools) == ["read_file", "mcp__gh__list_issues"]


def test_a_pin_takes_a_slot_and_the_best_score_the_other_in_the_offered_order() -> None:
    # merge_pull_request 0.75 * 3/4 + 0.25 * 3/3 = 0.8125 beats list_issues 0.75 * 2/3 + 0.25 * 2/3
    tools = toolset([user("list the open issues and merge the pull request")], always_include=["mcp__gh__get_weather"])
    assert offered(tools) == ["read_file", "mcp__gh__merge_pull_request", "mcp__gh__get_weather"]


def test_tools_the_conversation_already_used_stay_offered() -> None:
    messages = [user("what is the weather"), assistant_calling("mcp__gh__get_weather"), user("now list the issues")]
    assert used_tools(messages) == ["mcp__gh__get_weather"]
    assert offered(toolset(messages)) == ["read_file", "mcp__gh__list_issues", "mcp__gh__get_weather"]


def test_the_query_is_the_latest_user_message_in_either_content_shape() -> None:
    parts = user([{"type": "text", "text": "merge the"}, {"type": "text", "text": "pull request"}])
    assert latest_request([user("old"), parts, {"role": "tool", "content": "x"}]) == "merge the\npull request"
    assert offered(toolset([parts])) == ["read_file", "mcp__gh__merge_pull_request"]
    assert latest_request([]) == ""


def test_a_tool_not_offered_this_request_still_runs_when_called() -> None:
    tools = toolset([user("list the open issues")])
    assert "mcp__gh__get_weather" not in offered(tools)
    ctx = ToolContext(cwd=Path.cwd(), data_dir=Path.cwd())
    result = asyncio.run(tools.call(ToolCall(id="c", name="mcp__gh__get_weather", arguments={}), ctx))
    assert result == ToolResult("ran get_weather")


def test_without_an_embedding_model_the_keyword_retriever_is_used() -> None:
    assert isinstance(retriever_for(ToolRetrievalOptions()), KeywordRetriever)


class ServerProvider(Capability):
    def toolset(self, context: BuildContext) -> Toolset | None:
        return server_toolset()


def test_each_request_of_a_session_carries_the_tools_retrieval_chose(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text(
        "tool_retrieval:\n  max_tools: 2\n  min_scored_slots: 1\n  always_include: [mcp__gh__search_code]\n"
    )
    (tmp_path / ".ironhive" / "permissions.yaml").write_text(
        "permissions:\n  include_defaults: true\n  mcp_tools: [{pattern: 'mcp__gh__*', action: allow}]\n"
    )
    trust(tmp_path)
    overrides = Overrides(model="openai/test-model", api_base=llm_server.base_url, api_key="k")
    config = load_config(tmp_path, overrides, persist=False)
    capabilities = (Tools(BuiltinTools()), ServerProvider(), ToolRetrieval(), ContextManagement())
    agent = build_agent(config, approver=None, data_dir=tmp_path / "out", capabilities=capabilities)
    llm_server.script(tool_calls(call("mcp__gh__get_weather")), text("done"))

    asyncio.run(collect(agent.loop.run_streaming("please list the issues")))

    first, second = (request_tools(request.json) for request in llm_server.chat_requests)
    assert [name for name in first if name.startswith("mcp__")] == ["mcp__gh__list_issues", "mcp__gh__search_code"]
    assert [name for name in second if name.startswith("mcp__")] == [
        "mcp__gh__list_issues", "mcp__gh__search_code", "mcp__gh__get_weather"
    ]  # fmt: skip
    assert "read_file" in first and "recall_result" in first
    tool_message = llm_server.chat_requests[1].messages[-1]
    assert tool_message["role"] == "tool" and tool_message["content"] == "ran get_weather"


def request_tools(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]
