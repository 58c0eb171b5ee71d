"""web_search through the suite's search server, with research's providers and fallback; and what it says without one."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.research.options import ResearchOptions
from engine.tools.base import ToolContext, ToolResult
from engine.tools.web.options import WebToolOptions
from engine.tools.web.search_tool import WebSearchTool
from tests.support.search_server import Result, SearchServer, status


@pytest.fixture
def server() -> Iterator[SearchServer]:
    with SearchServer() as server:
        server.results = [
            Result("Solar sails", server.page_url("solar-sails.html"), "record speed"),
            Result("Sourdough", server.page_url("sourdough.html"), "slow rise"),
        ]
        yield server


def search(env: dict[str, str], tmp_path: Path, research: ResearchOptions | None = None) -> ToolResult:
    tool = WebSearchTool(WebToolOptions(research=research or ResearchOptions()), env=lambda: env)
    return asyncio.run(tool.run({"query": "solar  sails"}, ToolContext(cwd=tmp_path, data_dir=tmp_path)))


def test_results_come_back_numbered_and_marked_untrusted(server: SearchServer, tmp_path: Path) -> None:
    result = search({"SEARXNG_URL": server.searxng_url}, tmp_path)

    assert result.success, result.output
    assert result.output.splitlines()[0] == '[web_search: 2 results for "solar sails" from searxng]'
    assert f"1. Solar sails\n   {server.page_url('solar-sails.html')}\n   record speed" in result.output
    assert '<untrusted_web_content source="web search">' in result.output
    assert "q=solar+sails" in server.searches("searxng")[0].path


def test_a_failing_provider_hands_the_query_to_the_next(server: SearchServer, tmp_path: Path) -> None:
    server.script("searxng", status(500))
    env = {"SEARXNG_URL": server.searxng_url, "BRAVE_API_KEY": server.BRAVE_KEY, "BRAVE_API_BASE": server.brave_url}
    result = search(env, tmp_path)
    assert result.success and "from brave]" in result.output.splitlines()[0]


def test_a_provider_chosen_but_not_configured_is_one_clear_message(tmp_path: Path) -> None:
    result = search({}, tmp_path, ResearchOptions(provider="tavily"))
    assert not result.success
    assert result.output.startswith("web_search cannot search: the tavily search provider is not configured: set ")
    assert "SEARXNG_URL" in result.output and "Traceback" not in result.output


def test_an_unreachable_provider_says_so_in_plain_words(tmp_path: Path) -> None:
    result = search({"SEARXNG_URL": "http://127.0.0.1:9/searxng"}, tmp_path, ResearchOptions(provider="searxng"))
    assert not result.success
    assert "the connection was refused" in result.output and "(hive may be offline)" in result.output
