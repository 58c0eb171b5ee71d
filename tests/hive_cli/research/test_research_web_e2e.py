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


def offline_hint(stderr: str) -> str:
    """The last line, checked to be the one clear offline line: no repr of an exception, the docs provider named."""
    last = stderr.splitlines()[-1]
    assert last.startswith("hive: the web could not be reached ("), stderr
    assert last.endswith(f"to research local documents instead: hive research --provider docs --docs DIR '{QUESTION}'")
    assert "Traceback" not in stderr and not re.search(r"\w+Error\(", stderr), stderr
    return last


def test_an_unreachable_provider_is_a_clear_error_with_exit_2(llm_server: LLMServer, tmp_path: Path) -> None:
    ResearchScript().install(llm_server)

    done = run(llm_server, tmp_path, "searxng", SEARXNG_URL="http://127.0.0.1:9/searxng")

    assert done.returncode == 2
    assert "(searxng: cannot reach http://127.0.0.1:9/searxng: the connection was refused" in offline_hint(done.stderr)


def test_offline_the_default_web_provider_ends_with_the_way_to_research_local_documents(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    ResearchScript().install(llm_server)

    done = run(llm_server, tmp_path, "duckduckgo")  # the one that needs no key; the test network refuses it
    named = run(llm_server, tmp_path, "searxng", SEARXNG_URL="http://search.example.org/searxng")

    assert (done.returncode, named.returncode) == (2, 2)
    assert "duckduckgo: cannot reach its search engines: the connection was refused" in offline_hint(done.stderr)
    assert "searxng: cannot reach http://search.example.org/searxng" in named.stderr
    offline_hint(named.stderr)
    assert llm_server.chat_requests == []  # it stopped before any model call


def test_a_provider_that_answers_with_a_refusal_is_not_called_offline(
    llm_server: LLMServer, tmp_path: Path, search: Any
) -> None:
    ResearchScript().install(llm_server)

    done = run(llm_server, tmp_path, "tavily", TAVILY_API_KEY="wrong-key", TAVILY_API_BASE=search.tavily_url)

    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith("hive: no search provider answered: "), done.stderr
    assert "could not be reached" not in done.stderr and "Error(" not in done.stderr


def test_the_research_setting_allows_private_urls_too(llm_server: LLMServer, tmp_path: Path, search: Any) -> None:
    ResearchScript(judges=['{"score": 0.9, "gaps": []}'], report=REPORT).install(llm_server)
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text("research:\n  allow_private_urls: true\n")
    trust(tmp_path)  # a repository cannot open research to private addresses until the person trusts it

    done = run(llm_server, tmp_path, "searxng", "-o", "json", **provider_env(search, "searxng"))

    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["sources"]) == 2


def test_when_no_page_can_be_reached_the_run_ends_with_the_way_to_research_local_documents(
    llm_server: LLMServer, tmp_path: Path, search: Any
) -> None:
    ResearchScript().install(llm_server)
    search.results = [search_server.Result("Solar sails", "http://pages.example.org/solar-sails.html", "fast")]

    done = run(llm_server, tmp_path, "searxng", "--depth", "quick", **provider_env(search, "searxng"))

    assert done.returncode == 1, done.stderr  # no source at all, as documented
    assert "No sources were found" in done.stdout
    assert "research: dropped http://pages.example.org/solar-sails.html" in done.stderr, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("hive: no page could be read: the web could not be reached;"), done.stderr
    assert last.endswith(f"hive research --provider docs --docs DIR '{QUESTION}'")
    assert not re.search(r"\w+Error\(", done.stderr), done.stderr
