"""build_providers: which web providers a run gets from the settings and the environment, and in what order."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator, Mapping

import pytest

from engine.config.validation import convert
from engine.research.fallback import FallbackSearch
from engine.research.fetch import WebFetcher
from engine.research.options import ResearchOptions
from engine.research.providers import ResearchConfigError, build_providers
from engine.research.sources import SearchHit, SearchProvider
from tests.support.cli import hive_env
from tests.support.search_server import Provider, Result, SearchServer

ALL: tuple[Provider, ...] = ("searxng", "tavily", "brave")
SOLAR = Result("Solar Sails Reach Record Speed", "https://news.example/solar", "solar sails pass 40 km/s")


@pytest.fixture
def server() -> Iterator[SearchServer]:
    with SearchServer() as server:
        server.results = [SOLAR]
        yield server


def keys(server: SearchServer) -> dict[str, str]:
    return {
        "TAVILY_API_KEY": server.TAVILY_KEY,
        "TAVILY_API_BASE": server.tavily_url,
        "BRAVE_API_KEY": server.BRAVE_KEY,
        "BRAVE_API_BASE": server.brave_url,
    }


def build(env: Mapping[str, str], **options: object) -> list[SearchProvider]:
    settings = convert(options, ResearchOptions)
    providers, _ = build_providers(settings, env, docs_dir=None, allow_private_urls=False)
    return providers


def names(providers: list[SearchProvider]) -> list[str]:
    return [provider.name for provider in providers]


def search(provider: SearchProvider) -> list[SearchHit]:
    return asyncio.run(provider.search("solar sails", 5))


def test_with_no_provider_asked_every_configured_one_comes_in_the_default_order(server: SearchServer) -> None:
    env = keys(server) | {"SEARXNG_URL": server.searxng_url}
    assert names(build(env)) == ["searxng", "tavily", "brave", "duckduckgo"]


def test_the_asked_provider_comes_first_and_the_other_configured_ones_follow(server: SearchServer) -> None:
    assert names(build(keys(server), provider="brave")) == ["brave", "tavily", "duckduckgo"]


def test_each_provider_built_reaches_the_base_url_from_the_environment(server: SearchServer) -> None:
    env = keys(server) | {"SEARXNG_URL": server.searxng_url}
    for provider in build(env)[:3]:
        assert search(provider) == [
            SearchHit(title=SOLAR.title, url=SOLAR.url, snippet=SOLAR.snippet, provider=provider.name)
        ]
    assert [len(server.searches(name)) for name in ALL] == [1, 1, 1]


def test_searxng_url_in_the_environment_wins_over_the_setting(server: SearchServer) -> None:
    with SearchServer() as gone:
        stale = gone.searxng_url
    [searxng, _] = build({"SEARXNG_URL": server.searxng_url}, searxng_url=stale)
    assert search(searxng)[0].url == SOLAR.url


def test_the_searxng_setting_is_used_when_the_environment_has_none(server: SearchServer) -> None:
    [searxng, _] = build({"SEARXNG_URL": ""}, searxng_url=server.searxng_url, provider="searxng")
    assert search(searxng)[0].provider == "searxng"


@pytest.mark.parametrize(
    ("provider", "needed"),
    [
        ("tavily", "set TAVILY_API_KEY"),
        ("brave", "set BRAVE_API_KEY"),
        ("searxng", "set SEARXNG_URL or the research.searxng_url setting"),
    ],
)
def test_asking_for_a_provider_that_is_not_configured_names_what_to_set(provider: str, needed: str) -> None:
    with pytest.raises(ResearchConfigError) as caught:
        build({"TAVILY_API_KEY": "  ", "BRAVE_API_KEY": ""}, provider=provider)
    assert str(caught.value) == f"the {provider} search provider is not configured: {needed}"


def test_duckduckgo_needs_no_key_so_it_is_the_last_resort() -> None:
    assert names(build({})) == ["duckduckgo"]


def test_the_docs_provider_without_a_folder_asks_for_one() -> None:
    with pytest.raises(ResearchConfigError) as caught:
        build({}, provider="docs")
    assert "--docs DIR" in str(caught.value)


@pytest.mark.parametrize("allow", [False, True])
def test_the_fetcher_follows_the_private_url_choice(allow: bool) -> None:
    _, fetcher = build_providers(ResearchOptions(), {}, docs_dir=None, allow_private_urls=allow)
    assert isinstance(fetcher, WebFetcher)
    assert fetcher.allow_private_urls is allow


def test_the_built_list_wrapped_in_a_fallback_skips_a_refused_key(server: SearchServer) -> None:
    env = keys(server) | {"TAVILY_API_KEY": "wrong"}
    chain = FallbackSearch(build(env, provider="tavily"))
    assert [hit.provider for hit in search(chain)] == ["brave"]


def test_building_the_providers_imports_no_extraction_search_or_http_library() -> None:
    code = (
        "import os, sys\n"
        "from engine.research.options import ResearchOptions\n"
        "from engine.research.providers import build_providers\n"
        "build_providers(ResearchOptions(), {'BRAVE_API_KEY': 'k'}, docs_dir=None, allow_private_urls=False)\n"
        "print(' '.join(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=hive_env(), capture_output=True, text=True, check=True)
    assert not set(done.stdout.split()) & {"trafilatura", "ddgs", "pypdf", "lxml", "httpx2", "httpx"}
