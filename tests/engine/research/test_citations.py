"""Citations are owned by code: unknown numbers go, the rest follow first use, only registry URLs appear."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.research.citations import settle_citations, sources_section
from engine.research.result import Source

ACCESSED = datetime(2026, 12, 2, tzinfo=UTC)


def registry(*urls: str) -> dict[int, Source]:
    return {
        n: Source(number=n, url=url, title=f"Title {n}", provider="docs", accessed=ACCESSED, text="")
        for n, url in enumerate(urls, start=1)
    }


def test_citations_are_renumbered_in_order_of_first_use() -> None:
    sources = registry("/a.md", "/b.md", "/c.md")
    settled = settle_citations("First [3]. Then [1] and [3] again. Both [1, 3].", sources)

    assert settled.body == "First [1]. Then [2] and [1] again. Both [2][1]."
    assert [(c.number, c.source.url) for c in settled.sources] == [(1, "/c.md"), (2, "/a.md")]
    assert settled.removed == ()


def test_unknown_citations_are_removed_and_reported() -> None:
    settled = settle_citations("Known [1]. Invented [9]. Mixed [1][4].", registry("/a.md"))

    assert settled.body == "Known [1]. Invented. Mixed [1]."
    assert settled.removed == (9, 4)


def test_urls_outside_the_registry_are_taken_out_and_links_keep_their_words() -> None:
    sources = registry("https://known.example/page")
    written = (
        "See [the page](https://known.example/page) and [this](https://evil.example/x) or https://evil.example/y [1]."
    )

    body = settle_citations(written, sources).body

    assert "evil.example" not in body
    assert "[the page](https://known.example/page)" in body and "this" in body


def test_a_sources_section_written_by_the_model_is_replaced() -> None:
    settled = settle_citations("Claim [1].\n\n## References\n[1] https://made.up/", registry("/a.md"))

    assert settled.body == "Claim [1]."


def test_the_sources_section_lists_title_location_and_date() -> None:
    settled = settle_citations("Claim [1].", registry("/docs/a.md"))

    assert sources_section(settled.sources) == "## Sources\n\n[1] Title 1 — /docs/a.md (accessed 2026-12-02)"
