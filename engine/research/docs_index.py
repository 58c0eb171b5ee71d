"""Local documents as a research source: a folder's text files, searched with BM25 and read from disk.

The folder is indexed on the first search (``bm25s``, in a worker thread), in passages of about
``PASSAGE_WORDS`` words so a long file is found by the part that matches. A search returns files,
each once, with the best passage as the snippet. Reading is confined to the folder.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.research.sources import FetchedPage, FetchError, SearchError, SearchHit
from engine.safe_read import read_bounded

SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".html", ".htm"})
PASSAGE_WORDS = 300
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
"""Larger documents are not indexed or read."""
SNIPPET_CHARS = 300
_TAG = re.compile(r"<(script|style)\b.*?</\1>|<[^>]+>", re.IGNORECASE | re.DOTALL)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


class Passage(Struct, frozen=True, kw_only=True):
    """One indexed piece of a file."""

    path: Path
    title: str
    text: str


class LocalDocs:
    """A folder of text and markdown files as a ``SearchProvider`` (name ``docs``) and a ``PageFetcher``.

    A hit's url is the file's path; ``fetch`` reads that file again, whole.
    """

    name = "docs"

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self._passages: list[Passage] = []
        self._index: Any = None
        self._lock = asyncio.Lock()

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """The files whose passages best match ``query``, best first (at most ``limit``)."""
        async with self._lock:
            if self._index is None:
                await asyncio.to_thread(self.build)
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
            raw = read_bounded(path, limit=MAX_DOCUMENT_BYTES, within=self.folder).decode("utf-8", errors="replace")
        except OSError as error:  # also a refusal: too large, not a regular file
            raise FetchError(url, f"cannot read it ({error.strerror or error})") from None
        title, text = readable(path, raw)
        if not text.strip():
            raise FetchError(url, "the file holds no text")
        return FetchedPage(url=url, title=title, text=text, accessed=datetime.now(UTC))

    def build(self) -> int:
        """Read the folder and index it (again); the number of files indexed."""
        import bm25s  # type: ignore[import-untyped]

        if not self.folder.is_dir():
            raise SearchError(self.name, f"the documents folder {self.folder} does not exist")
        files = document_files(self.folder)
        self._passages = [p for path in files for p in passages(path)]
        retriever = bm25s.BM25()
        if self._passages:
            tokens = bm25s.tokenize([p.text for p in self._passages], stopwords="en", show_progress=False)
            retriever.index(tokens, show_progress=False)
        self._index = retriever
        return len(files)

    def _best_files(self, query: str, limit: int) -> list[SearchHit]:
        import bm25s

        if not self._passages or limit < 1:
            return []
        words = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)
        if not words or not words[0]:
            return []
        k = min(len(self._passages), limit * 4)
        positions, scores = self._index.retrieve(words, k=k, show_progress=False)
        hits: dict[Path, SearchHit] = {}
        for position, score in zip(positions[0], scores[0], strict=True):
            passage = self._passages[int(position)]
            if score <= 0 or passage.path in hits:  # bm25s fills up to k with zero-score passages
                continue
            hits[passage.path] = SearchHit(
                title=passage.title, url=str(passage.path), snippet=passage.text[:SNIPPET_CHARS], provider=self.name
            )
        return list(hits.values())[:limit]


def document_files(folder: Path) -> list[Path]:
    """The readable documents under ``folder`` (hidden folders skipped), in path order."""
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.suffix.lower() in SUFFIXES and path.is_file() and not any(p.startswith(".") for p in relative.parts):
            found.append(path)
    return found


def passages(path: Path) -> list[Passage]:
    """``path`` cut into passages of about ``PASSAGE_WORDS`` words, each carrying the file's title."""
    try:
        raw = read_bounded(path, limit=MAX_DOCUMENT_BYTES).decode("utf-8", errors="replace")
    except OSError:  # unreadable, or refused: too large, not a regular file
        return []
    title, text = readable(path, raw)
    words = text.split()
    return [
        Passage(path=path, title=title, text=" ".join(words[start : start + PASSAGE_WORDS]))
        for start in range(0, len(words), PASSAGE_WORDS)
    ]


def readable(path: Path, raw: str) -> tuple[str, str]:
    """The title and plain text of a document (HTML tags stripped)."""
    if path.suffix.lower() in (".html", ".htm"):
        found = _TITLE.search(raw)
        text = _TAG.sub(" ", raw)
        title = " ".join(found.group(1).split()) if found else ""
        return title or path.stem, text
    return markdown_title(raw) or path.stem, raw


def markdown_title(text: str) -> str:
    """The first markdown heading's text, or ''."""
    for line in text.splitlines()[:40]:
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""
