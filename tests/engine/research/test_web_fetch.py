"""hive's page fetcher against fixture pages on a local server: extraction, the address checks and the caps."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterator

import pytest

from engine.research.extract import extract_now
from engine.research.fetch import FetchLimits, WebFetcher
from engine.research.sources import FetchedPage, FetchError
from tests.support.search_server import Page, SearchServer, pdf_with_text, redirect

LOOPBACK_V4 = [ipaddress.ip_network("127.0.0.1/32")]
SHORT = FetchLimits(timeout_s=0.3)


@pytest.fixture
def server() -> Iterator[SearchServer]:
    with SearchServer() as server:
        yield server


def fetch(url: str, fetcher: WebFetcher | None = None) -> FetchedPage:
    return asyncio.run((fetcher or WebFetcher(allow_private_urls=True)).fetch(url))


def refusal(url: str, fetcher: WebFetcher | None = None) -> str:
    with pytest.raises(FetchError) as caught:
        fetch(url, fetcher)
    assert caught.value.url == url
    return str(caught.value)


# --- extraction ----------------------------------------------------------------------------------------------------


def test_the_article_is_extracted_without_navigation_ads_asides_comments_or_footer(server: SearchServer) -> None:
    page = fetch(server.page_url("solar-sails.html"))
    assert page.title == "Solar Sails Reach Record Speed"
    assert page.url == server.page_url("solar-sails.html")
    assert "The Lumen-2 light sail probe passed 40 kilometres per second" in page.text
    assert "## How the sail was steered" in page.text
    assert "- Membrane thickness: 2.5 micrometres" in page.text
    assert "| Lumen-2 | 2026 | 40 km/s |" in page.text
    for boilerplate in ("Subscribe to our newsletter", "ADVERTISEMENT", "Related stories", "All rights reserved"):
        assert boilerplate not in page.text
    for comment in ("Totally fake", "First!", "livestream"):
        assert comment not in page.text


def test_links_are_dropped_so_the_text_carries_no_urls(server: SearchServer) -> None:
    page = fetch(server.page_url("solar-sails.html"))
    assert "Details are in the mission briefing." in page.text
    assert "agency.example" not in page.text


def test_comment_threads_are_left_out(server: SearchServer) -> None:
    page = fetch(server.page_url("sourdough.html"))
    assert "the acid they make slows the yeast down" in page.text
    assert "haunted" not in page.text
    assert "gluten free" not in page.text
    assert "cookies" not in page.text


def test_a_page_with_no_text_left_after_extraction_is_a_fetch_error(server: SearchServer) -> None:
    assert "no readable text" in refusal(server.page_url("empty.html"))


def test_plain_text_is_kept_as_it_is_and_titled_by_its_first_line(server: SearchServer) -> None:
    url = server.add_page("/notes.txt", Page(b"Field notes\n\nThe starter doubled in four hours.", "text/plain"))
    page = fetch(url)
    assert (page.title, page.text) == ("Field notes", "Field notes\n\nThe starter doubled in four hours.")


def test_pdf_text_and_title_are_extracted(server: SearchServer) -> None:
    body = pdf_with_text("Lumen-2 reached 40 km/s on sunlight alone.", title="Lumen-2 briefing")
    page = fetch(server.add_page("/briefing.pdf", Page(body, "application/pdf")))
    assert page.title == "Lumen-2 briefing"
    assert "Lumen-2 reached 40 km/s on sunlight alone." in page.text


def test_a_broken_pdf_is_a_fetch_error(server: SearchServer) -> None:
    url = server.add_page("/broken.pdf", Page(b"%PDF-1.4 this is not really a PDF", "application/pdf"))
    assert "PDF" in refusal(url)


def test_extraction_of_whitespace_only_text_fails() -> None:
    with pytest.raises(FetchError):
        extract_now(b"  \n\t ", "text", url="https://example.org/blank.txt")


# --- what is refused -----------------------------------------------------------------------------------------------


def test_a_loopback_address_is_refused_by_default_before_any_connection(server: SearchServer) -> None:
    message = refusal(server.page_url("solar-sails.html"), WebFetcher())
    assert "private or local address (127.0.0.1)" in message
    assert "--allow-private-urls" in message
    assert server.requests == []


def test_a_host_name_is_judged_by_the_address_it_resolves_to(server: SearchServer) -> None:
    url = f"http://localhost:{server.port}/pages/solar-sails.html"
    assert "private or local address" in refusal(url, WebFetcher())
    assert server.requests == []


def test_allowed_networks_let_a_private_address_through_and_the_host_name_is_still_sent(server: SearchServer) -> None:
    fetcher = WebFetcher(allowed_networks=[ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")])
    page = fetch(f"http://localhost:{server.port}/pages/solar-sails.html", fetcher)
    assert page.title == "Solar Sails Reach Record Speed"
    assert server.last_request.headers["host"] == f"localhost:{server.port}"


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.5/admin",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://[::1]:8080/",
        "http://[::ffff:127.0.0.2]/",
        "http://0.0.0.0/",
    ],
)
def test_a_redirect_to_a_private_address_is_refused(server: SearchServer, target: str) -> None:
    url = server.add_page("/jump", redirect(target))
    assert "private or local address" in refusal(url, WebFetcher(allowed_networks=LOOPBACK_V4))
    assert len(server.requests) == 1


def test_redirects_are_followed_when_every_hop_passes(server: SearchServer) -> None:
    server.add_page("/old", redirect("/moved", 301))
    url = server.add_page("/moved", redirect(server.page_url("sourdough.html"), 307))
    page = fetch(f"{server.url}/old", WebFetcher(allowed_networks=LOOPBACK_V4))
    assert page.title == "Why Sourdough Rises Slowly"
    assert [request.path for request in server.requests] == ["/old", "/moved", "/pages/sourdough.html"]
    assert url.endswith("/moved")


def test_a_redirect_loop_stops_at_the_limit(server: SearchServer) -> None:
    server.add_page("/loop", redirect("/loop"))
    assert "redirects" in refusal(
        f"{server.url}/loop", WebFetcher(allow_private_urls=True, limits=FetchLimits(max_redirects=3))
    )
    assert len(server.requests) == 4


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/file.txt", "gopher://example.org/"])
def test_only_http_and_https_are_fetched(url: str) -> None:
    assert "only http and https" in refusal(url)


def test_a_redirect_to_another_scheme_is_refused(server: SearchServer) -> None:
    url = server.add_page("/to-file", redirect("file:///etc/passwd"))
    assert "only http and https" in refusal(url)


def test_a_page_declaring_more_than_the_cap_is_refused_unread(server: SearchServer) -> None:
    url = server.add_page("/big.html", Page(b"<p>" + b"x" * 5000 + b"</p>"))
    message = refusal(url, WebFetcher(allow_private_urls=True, limits=FetchLimits(max_bytes=4096)))
    assert "larger than 4096 bytes" in message


def test_a_streamed_page_is_cut_off_at_the_cap(server: SearchServer) -> None:
    url = server.add_page("/stream.html", Page(b"<p>" + b"word " * 200_000 + b"</p>", chunked=True))
    message = refusal(url, WebFetcher(allow_private_urls=True, limits=FetchLimits(max_bytes=100_000)))
    assert message.endswith("larger than 100000 bytes")


@pytest.mark.parametrize("content_type", ["image/png", "application/octet-stream", "application/zip", ""])
def test_content_that_is_not_text_is_refused(server: SearchServer, content_type: str) -> None:
    url = server.add_page("/file", Page(b"\x89PNG\r\n\x1a\n", content_type))
    assert "not a text page" in refusal(url)


def test_an_error_status_is_a_fetch_error(server: SearchServer) -> None:
    assert "HTTP 404" in refusal(server.page_url("missing.html"))


def test_a_hanging_page_times_out(server: SearchServer) -> None:
    url = server.add_page("/hang", Page(hang=True))
    assert "no answer within 0.3 s" in refusal(url, WebFetcher(allow_private_urls=True, limits=SHORT))


def test_an_unreachable_host_is_a_fetch_error() -> None:
    with SearchServer() as gone:
        url = gone.page_url("solar-sails.html")
    said = refusal(url)
    assert said.endswith("cannot reach it: the connection was refused") and "Error(" not in said
