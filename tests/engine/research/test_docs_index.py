"""LocalDocs: BM25 over a folder's documents, files found once each, reads kept inside the folder."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine.research.docs_index import LocalDocs
from engine.research.sources import FetchError, SearchError
from tests.support.research_model import FIXTURE_DOCS


def search(docs: LocalDocs, query: str, limit: int = 5) -> list[str]:
    return [Path(hit.url).name for hit in asyncio.run(docs.search(query, limit))]


def test_the_best_matching_file_comes_first_and_each_file_once() -> None:
    docs = LocalDocs(FIXTURE_DOCS)

    found = search(docs, "volcanic ash ice cores")

    assert found[0] == "glacier_ice_cores.md"
    assert len(found) == len(set(found))


def test_words_no_document_holds_find_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nGlaciers melt.\n")

    assert search(LocalDocs(tmp_path), "zebra unicorn") == []


def test_a_long_file_is_found_by_the_passage_that_matches(tmp_path: Path) -> None:
    filler = " ".join(["glacier"] * 900)
    (tmp_path / "long.md").write_text(f"# Long\n\n{filler} the ptarmigan nests here\n")
    (tmp_path / "short.md").write_text("# Short\n\nGlaciers and rivers.\n")

    hits = asyncio.run(LocalDocs(tmp_path).search("ptarmigan", 5))

    assert [Path(h.url).name for h in hits] == ["long.md"] and "ptarmigan" in hits[0].snippet


def test_html_is_read_as_text_with_its_title_and_hidden_folders_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text("<html><head><title>Ice Page</title><script>x()</script></head><p>firn</p>")
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "firn.md").write_text("firn firn firn")
    docs = LocalDocs(tmp_path)

    hits = asyncio.run(docs.search("firn", 5))
    page = asyncio.run(docs.fetch(hits[0].url))

    assert [h.title for h in hits] == ["Ice Page"]
    assert "firn" in page.text and "<p>" not in page.text and "x()" not in page.text


def test_reading_outside_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    (tmp_path / "secret.md").write_text("secret")

    with pytest.raises(FetchError, match="not inside"):
        asyncio.run(LocalDocs(tmp_path / "inside").fetch(str(tmp_path / "inside" / ".." / "secret.md")))


def test_a_missing_folder_is_a_search_error(tmp_path: Path) -> None:
    with pytest.raises(SearchError, match="does not exist"):
        asyncio.run(LocalDocs(tmp_path / "gone").search("x", 5))
