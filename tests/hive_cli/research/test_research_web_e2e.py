"""`hive research` over the web providers: the fake search server answers as SearXNG, Tavily and Brave."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import search_server
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer
from tests.support.research_model import ResearchScript
from tests.support.trust import trust

QUESTION = "How fast do solar sails go?"
REPORT = "Solar sails reached a record speed [1]. Sourdough rises slowly [2]. See https://made-up.example/x."


@pytest.fixture
def search() -> Iterator[Any]:
    with search_server.SearchServer() as server:
        server.results = [
            search_server.Result("Solar sails", server.page_url("solar-sails.html"), "record speed"),
            search_server.Result("Sourdough", server.page_url("sourdough.html"), "slow rise"),
        ]
        yield server


def run(llm: LLMServer, workdir: Path, provider: str, *extra: str, **env: str) -> Any:
    args = ["-m", "openai/test-model", "--api-base", llm.base_url, "--api-key", "sk-test", "-C", str(workdir)]
    return run_hive("research", QUESTION, *args, "--provider", provider, "--min-sources", "1", *extra, **env)


def provider_env(search: Any, provider: str) -> dict[str, str]:
    return {
        "searxng": {"SEARXNG_URL": search.searxng_url},
        "tavily": {"TAVILY_API_KEY": search.TAVILY_KEY, "TAVILY_API_BASE": search.tavily_url},
        "brave": {"BRAVE_API_KEY": search.BRAVE_KEY, "BRAVE_API_BASE": search.brave_url},
    }[provider]


@pytest.mark.parametrize("provider", ["searxng", "tavily", "brave"])
def test_a_full_run_cites_only_the_pages_the_provider_found(
    llm_server: LLMServer, tmp_path: Path, search: Any, provider: str
) -> None:
    ResearchScript(judges=['{"score": 0.9, "gaps": []}'], report=REPORT).install(llm_server)

    done = run(llm_server, tmp_path, provider, "--allow-private-urls", "-o", "json", **provider_env(search, provider))

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    urls = {s["url"] for s in result["sources"]}
    assert urls == {search.page_url("solar-sails.html"), search.page_url("sourdough.html")}
    body = result["report"].split("## Sources", 1)[0]
    assert set(re.findall(r"https?://\S+", result["report"])) <= {f"{u}" for u in urls}
    assert {int(n) for n in re.findall(r"\[(\d+)\]", body)} == {s["number"] for s in result["sources"]}


def test_loopback_pages_are_refused_without_allow_private_urls(
    llm_server: LLMServer, tmp_path: Path, search: Any
) -> None:
    ResearchScript(report=REPORT).install(llm_server)

    done = run(llm_server, tmp_path, "searxng", **provider_env(search, "searxng"))

    assert done.returncode == 1, done.stderr
    assert "No sources were found" in done.stdout
    assert "dropped" in done.stderr


def test_an_untrusted_projects_setting_does_not_open_research_to_private_urls(
    llm_server: LLMServer, tmp_path: Path, search: Any
) -> None:
    ResearchScript(report=REPORT).install(llm_server)
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text("research:\n  allow_private_urls: true\n")

    done = run(llm_server, tmp_path, "searxng", **provider_env(search, "searxng"))

    assert done.returncode == 1, done.stderr
    assert "No sources were found" in done.stdout
    assert not [r for r in search.requests if r.path.endswith(".html")]  # no page at a private address was fetched


def test_an_unreachable_provider_is_a_clear_error_with_exit_2(llm_server: LLMServer, tmp_path: Path) -> None:
    ResearchScript().install(llm_server)

    done = run(llm_server, tmp_path, "searxng", SEARXNG_URL="http://127.0.0.1:9/searxng")

    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith("hive: no search provider answered")


def test_the_research_setting_allows_private_urls_too(llm_server: LLMServer, tmp_path: Path, search: Any) -> None:
    ResearchScript(judges=['{"score": 0.9, "gaps": []}'], report=REPORT).install(llm_server)
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text("research:\n  allow_private_urls: true\n")
    trust(tmp_path)  # a repository cannot open research to private addresses until the person trusts it

    done = run(llm_server, tmp_path, "searxng", "-o", "json", **provider_env(search, "searxng"))

    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["sources"]) == 2
