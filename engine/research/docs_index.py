"""Local documents as a research source: a folder's text files, searched with BM25 and read from disk.

The folder is indexed on the first search (in a worker thread), in passages of about ``PASSAGE_WORDS``
words so a long file is found by the part that matches. The index is kept in the user cache
(``kept_index``) and brought up to date on the next run by reading only new and changed files
(``docs_refresh``). A search returns files, each once, with the best passage as the snippet. Reading
is confined to the folder.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from msgspec.structs import replace

from engine.research.docs_refresh import IndexReport, refresh
from engine.research.docs_text import PASSAGE_WORDS, read_text, readable
from engine.research.events import DocumentsIndexed, ResearchEvent
from engine.research.kept_index import IndexedDocs, Unusable, kept_path, load, save
from engine.research.sources import FetchedPage, FetchError, SearchError, SearchHit

__all__ = ["PASSAGE_WORDS", "LocalDocs"]


class LocalDocs:
    """A folder of text and markdown files as a ``SearchProvider`` (name ``docs``) and a ``PageFetcher``.

    A hit's url is the file's path; ``fetch`` reads that file again, whole. ``cache``: the folder
    the index is kept under (default: hive's user cache).
    """

    name = "docs"

    def __init__(self, folder: Path, *, cache: Path | None = None) -> None:
        self.folder = folder.resolve()
        self.cache = cache
        self._docs: IndexedDocs | None = None
        self._owners: list[int] = []
        """Each passage's file (its position in ``_docs.files``)."""
        self._lock = asyncio.Lock()
        self._emit: Callable[[ResearchEvent], None] | None = None

    def report_to(self, emit: Callable[[ResearchEvent], None]) -> None:
        """Tell ``emit`` how the folder was indexed (a ``DocumentsIndexed`` event), once it is."""
        self._emit = emit

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """The files whose passages best match ``query``, best first (at most ``limit``)."""
        async with self._lock:
            if self._docs is None:
                report = await asyncio.to_thread(self.build)
                if self._emit is not None:
                    self._emit(indexed_event(self.folder, report))
        return self._best_files(query, limit)

    async def fetch(self, url: str) -> FetchedPage:
        """The text of the file at ``url`` (a path inside the folder)."""
        return await asyncio.to_thread(self.read, url)

    def read(self, url: str) -> FetchedPage:
        """``fetch``, blocking."""
        path = Path(url).resolve()
        if not path.is_relative_to(self.folder):
            raise FetchError(url, f"not inside the documents folder {self.folder}")
        try:
            raw = read_text(path, self.folder)
        except OSError as error:  # also a refusal: too large, not a regular file
            raise FetchError(url, f"cannot read it ({error.strerror or error})") from None
        title, text = readable(path, raw)
        if not text.strip():
            raise FetchError(url, "the file holds no text")
        return FetchedPage(url=url, title=title, text=text, accessed=datetime.now(UTC))

    def build(self) -> IndexReport:
        """Index the folder (again), from its kept index and the files changed since; what it took."""
        if not self.folder.is_dir():
            raise SearchError(self.name, f"the documents folder {self.folder} does not exist")
        where = kept_path(self.folder, self.cache)
        note = ""
        try:
            previous = load(where, self.folder)
        except Unusable as problem:
            previous, note = None, f"the kept index {problem}: indexed afresh"
        docs, report = refresh(self.folder, previous)
        if report.changed:
            try:
                save(where, self.folder, docs)
            except OSError as error:
                note = f"the index could not be kept in {where.parent} ({error.strerror or error})"
        self._docs = docs
        self._owners = np.repeat(np.arange(len(docs.files)), [kept.passages for kept in docs.files]).tolist()
        return replace(report, note=note)

    def _best_files(self, query: str, limit: int) -> list[SearchHit]:
        docs = self._docs
        if docs is None or limit < 1:
            return []
        count = limit * 4
        while True:  # a file has several passages: look further until ``limit`` files or no more passages
            passages, everything = docs.index.ranked(query, count)
            hits = self._hits(docs, passages.tolist(), limit)
            if len(hits) == limit or everything:
                return hits
            count *= 4

    def _hits(self, docs: IndexedDocs, passages: list[int], limit: int) -> list[SearchHit]:
        """The files of ``passages``, each once, at most ``limit``."""
        hits: dict[int, SearchHit] = {}
        for passage in passages:
            owner = self._owners[passage]
            if owner in hits:
                continue
            kept = docs.files[owner]
            url = str(self.folder / kept.stamp.path)
            hits[owner] = SearchHit(title=kept.title, url=url, snippet=docs.snippets[passage], provider=self.name)
            if len(hits) == limit:
                break
        return list(hits.values())


def indexed_event(folder: Path, report: IndexReport) -> DocumentsIndexed:
    """The progress event that tells ``report``."""
    return DocumentsIndexed(
        folder=str(folder), files=report.files, read=report.read, kept=report.kept, gone=report.gone, note=report.note
    )
