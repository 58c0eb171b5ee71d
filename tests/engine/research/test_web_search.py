"""The web search providers against a local server speaking each API, and the fallback between them."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from ddgs.exceptions import DDGSException, RatelimitException

from engine.research.brave import BraveSearch
from engine.research.duckduckgo import DuckDuckGoSearch
from engine.research.fallback import FallbackSearch
from engine.research.searxng import SearxngSearch
from engine.research.sources import SearchError, SearchHit, SearchProvider
from engine.research.tavily import TavilySearch
from engine.research.web_search import SearchLimits, rate_limit_wait
from tests.support.search_server import (
    Provider,
    Reply,
    Result,
    SearchServer,
    empty,
    gathered,
    hang,
    malformed,
    rate_limited,
    status,
)

FAST = SearchLimits(timeout_s=5.0, rate_limit_attempts=3, retry_after_cap_s=0.05, backoff_s=0.01)
SHORT = SearchLimits(timeout_s=0.3, rate_limit_attempts=1)
SOLAR = Result("Solar Sails Reach Record Speed", "https://news.example/solar", "solar sails pass 40 km/s")
BREAD = Result("Why Sourdough Rises Slowly", "https://bread.example/sourdough", "wild yeast & bacteria")


@pytest.fixture
def server() -> Iterator[SearchServer]:
    with SearchServer() as server:
        server.results = [SOLAR, BREAD]
        yield server


def provider(name: Provider, server: SearchServer, limits: SearchLimits = FAST) -> SearchProvider:
    if name == "searxng":
        return SearxngSearch(server.searxng_url, limits=limits)
    if name == "tavily":
        return TavilySearch(server.TAVILY_KEY, base_url=server.tavily_url, limits=limits)
    return BraveSearch(server.BRAVE_KEY, base_url=server.brave_url, limits=limits)


def search(source: SearchProvider, query: str = "solar sails", limit: int = 5) -> list[SearchHit]:
    return asyncio.run(source.search(query, limit))


ALL: tuple[Provider, ...] = ("searxng", "tavily", "brave")


# --- parsing each API ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_each_provider_returns_the_servers_results_as_hits_named_after_it(server: SearchServer, name: Provider) -> None:
    hits = search(provider(name, server))
    assert hits == [
        SearchHit(title=SOLAR.title, url=SOLAR.url, snippet=SOLAR.snippet, provider=name),
        SearchHit(title=BREAD.title, url=BREAD.url, snippet=BREAD.snippet, provider=name),
    ]


def test_searxng_asks_for_json_and_the_limit_trims_its_long_page(server: SearchServer) -> None:
    server.results = [Result(f"Page {n}", f"https://example.org/{n}") for n in range(20)]
    hits = search(provider("searxng", server), limit=3)
    assert [hit.url for hit in hits] == ["https://example.org/0", "https://example.org/1", "https://example.org/2"]
    assert server.searches("searxng")[0].path == "/searxng/search?q=solar+sails&format=json&pageno=1"


def test_tavily_sends_the_key_as_a_bearer_token_and_the_query_in_a_json_body(server: SearchServer) -> None:
    search(provider("tavily", server), limit=7)
    request = server.searches("tavily")[0]
    assert (request.method, request.headers["authorization"]) == ("POST", f"Bearer {server.TAVILY_KEY}")
    assert request.json == {"query": "solar sails", "search_depth": "basic", "max_results": 7}


def test_brave_sends_its_token_header_and_strips_the_highlighting_from_snippets(server: SearchServer) -> None:
    hits = search(provider("brave", server), query="wild yeast")
    request = server.searches("brave")[0]
    assert request.headers["x-subscription-token"] == server.BRAVE_KEY
    assert "count=5" in request.path
    assert hits[1].snippet == "wild yeast & bacteria"


@pytest.mark.parametrize("name", ALL)
def test_no_results_is_an_empty_list_not_an_error(server: SearchServer, name: Provider) -> None:
    server.script(name, empty())
    assert search(provider(name, server)) == []


# --- failures ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "key_env"), [("tavily", "TAVILY_API_KEY"), ("brave", "BRAVE_API_KEY")])
def test_a_refused_key_is_a_final_error_that_names_the_variable_to_check(
    server: SearchServer, name: Provider, key_env: str
) -> None:
    source: SearchProvider = (
        TavilySearch("wrong", base_url=server.tavily_url)
        if name == "tavily"
        else BraveSearch("wrong", base_url=server.brave_url)
    )
    with pytest.raises(SearchError) as caught:
        search(source)
    assert (caught.value.provider, caught.value.retryable) == (name, False)
    assert key_env in str(caught.value)
    assert len(server.searches(name)) == 1


def test_searxng_refusing_json_says_to_enable_the_format(server: SearchServer) -> None:
    server.script("searxng", status(403))
    with pytest.raises(SearchError) as caught:
        search(provider("searxng", server))
    assert not caught.value.retryable
    assert "search.formats" in str(caught.value)


@pytest.mark.parametrize("name", ALL)
def test_a_429_waits_for_retry_after_then_the_next_call_succeeds(server: SearchServer, name: Provider) -> None:
    server.script(name, rate_limited(0.01), rate_limited(0.01))
    hits = search(provider(name, server))
    assert [hit.url for hit in hits] == [SOLAR.url, BREAD.url]
    assert len(server.searches(name)) == 3


def test_rate_limits_past_the_attempts_give_a_retryable_error(server: SearchServer) -> None:
    server.script("tavily", *[rate_limited(0.01)] * 3)
    with pytest.raises(SearchError) as caught:
        search(provider("tavily", server))
    assert caught.value.retryable
    assert len(server.searches("tavily")) == FAST.rate_limit_attempts


def test_a_429_without_retry_after_backs_off_and_retries(server: SearchServer) -> None:
    server.script("brave", rate_limited(None))
    assert len(search(provider("brave", server))) == 2
    assert len(server.searches("brave")) == 2


@pytest.mark.parametrize(
    ("headers", "attempt", "wait"),
    [
        ({"retry-after": "3"}, 1, 3.0),
        ({"retry-after": "120"}, 1, 10.0),
        ({"retry-after": "Thu, 01 Jan 1970 00:00:00 GMT"}, 1, 0.0),
        ({"x-ratelimit-reset": "2, 1419704"}, 1, 2.0),
        ({"retry-after": "1", "x-ratelimit-reset": "5, 100"}, 1, 1.0),
    ],
)
def test_the_wait_after_a_429_is_the_one_asked_for_within_the_cap(
    headers: dict[str, str], attempt: int, wait: float
) -> None:
    assert rate_limit_wait(headers, attempt, SearchLimits(retry_after_cap_s=10.0)) == wait


def test_without_a_hint_the_wait_after_a_429_doubles_with_jitter() -> None:
    limits = SearchLimits(backoff_s=1.0, retry_after_cap_s=100.0)
    assert 0.75 <= rate_limit_wait({}, 1, limits) <= 1.25
    assert 3.0 <= rate_limit_wait({"x-ratelimit-reset": "soon"}, 3, limits) <= 5.0


def test_a_hanging_provider_times_out_with_a_retryable_error(server: SearchServer) -> None:
    server.script("searxng", hang())
    with pytest.raises(SearchError) as caught:
        search(provider("searxng", server, SHORT))
    assert caught.value.retryable
    assert "0.3 s" in str(caught.value)


def test_a_server_error_is_retryable(server: SearchServer) -> None:
    server.script("tavily", status(502))
    with pytest.raises(SearchError) as caught:
        search(provider("tavily", server))
    assert caught.value.retryable


@pytest.mark.parametrize("name", ALL)
def test_an_answer_that_is_not_json_is_a_clear_error(server: SearchServer, name: Provider) -> None:
    server.script(name, malformed())
    with pytest.raises(SearchError) as caught:
        search(provider(name, server))
    assert "not JSON" in str(caught.value)


@pytest.mark.parametrize("name", ALL)
def test_json_of_another_shape_is_a_clear_error(server: SearchServer, name: Provider) -> None:
    server.script(name, Reply(body=b"[1, 2, 3]"))
    with pytest.raises(SearchError) as caught:
        search(provider(name, server))
    assert "unexpected shape" in str(caught.value)


def test_an_unreachable_provider_is_a_retryable_error() -> None:
    with SearchServer() as gone:
        url = gone.searxng_url
    with pytest.raises(SearchError) as caught:
        search(SearxngSearch(url, limits=FAST))
    assert caught.value.retryable


def test_calls_through_one_provider_are_bounded_by_its_concurrency(server: SearchServer) -> None:
    # Each answer is held until a third search is in flight too: with at most two at once, that never happens.
    server.script("searxng", *[gathered(3, within_s=0.2)] * 4)
    source = SearxngSearch(server.searxng_url, limits=SearchLimits(max_concurrency=2))

    async def four_at_once() -> list[list[SearchHit]]:
        return await asyncio.gather(*(source.search(f"q{n}", 5) for n in range(4)))

    assert [len(hits) for hits in asyncio.run(four_at_once())] == [2, 2, 2, 2]
    assert server.max_in_flight == 2


# --- fallback ------------------------------------------------------------------------------------------------------


def test_when_the_first_provider_hangs_the_next_one_answers(server: SearchServer) -> None:
    server.script("searxng", hang())
    chain = FallbackSearch([provider("searxng", server, SHORT), provider("brave", server)])
    hits = search(chain)
    assert {hit.provider for hit in hits} == {"brave"}


def test_when_the_first_provider_is_rate_limited_past_its_attempts_the_next_one_answers(server: SearchServer) -> None:
    server.script("tavily", rate_limited(0.01))
    chain = FallbackSearch([provider("tavily", server, SHORT), provider("searxng", server)])
    assert {hit.provider for hit in search(chain)} == {"searxng"}


def test_a_provider_refused_for_good_is_not_asked_again(server: SearchServer) -> None:
    chain = FallbackSearch([TavilySearch("wrong", base_url=server.tavily_url), provider("searxng", server)])
    search(chain, "first")
    search(chain, "second")
    assert len(server.searches("tavily")) == 1
    assert len(server.searches("searxng")) == 2


def test_when_every_provider_fails_the_error_names_them_all(server: SearchServer) -> None:
    server.script("searxng", status(500))
    chain = FallbackSearch([TavilySearch("wrong", base_url=server.tavily_url), provider("searxng", server)])
    with pytest.raises(SearchError) as caught:
        search(chain)
    assert caught.value.provider == "tavily+searxng"
    assert caught.value.retryable
    assert "TAVILY_API_KEY" in str(caught.value)


def test_empty_results_are_an_answer_and_do_not_fall_back(server: SearchServer) -> None:
    server.script("searxng", empty())
    chain = FallbackSearch([provider("searxng", server), provider("brave", server)])
    assert search(chain) == []
    assert server.searches("brave") == []


# --- DuckDuckGo (ddgs cannot be pointed at a local server: a fake client class stands in) ---------------------------


class FakeDDGS:
    """Answers like ``ddgs.DDGS``: a list of {title, href, body}, or one of its exceptions."""

    def __init__(self, outcome: list[dict[str, str]] | Exception) -> None:
        self.outcome = outcome
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, timeout_s: float) -> FakeDDGS:
        return self

    def text(self, query: str, **options: Any) -> list[dict[str, str]]:
        self.calls.append((query, options))
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


def test_duckduckgo_rows_become_hits() -> None:
    fake = FakeDDGS([{"title": "Solar", "href": "https://news.example/solar", "body": "fast"}, {"title": "no href"}])
    hits = search(DuckDuckGoSearch(client_factory=fake), limit=3)
    assert hits == [SearchHit(title="Solar", url="https://news.example/solar", snippet="fast", provider="duckduckgo")]
    assert fake.calls == [("solar sails", {"max_results": 3, "region": "us-en", "safesearch": "moderate"})]


def test_duckduckgo_no_results_is_an_empty_list() -> None:
    assert search(DuckDuckGoSearch(client_factory=FakeDDGS(DDGSException("No results found.")))) == []


def test_duckduckgo_rate_limit_is_retryable_and_the_fallback_takes_over(server: SearchServer) -> None:
    limited = DuckDuckGoSearch(client_factory=FakeDDGS(RatelimitException("202 Ratelimit")))
    with pytest.raises(SearchError) as caught:
        search(limited)
    assert caught.value.retryable
    assert {hit.provider for hit in search(FallbackSearch([limited, provider("brave", server)]))} == {"brave"}
