"""Local documents as text: which files count, their title and plain text, and their passages."""

from __future__ import annotations

import re
from pathlib import Path

from engine.safe_read import read_bounded

SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".html", ".htm"})
PASSAGE_WORDS = 300
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
"""Larger documents are not indexed or read."""
SNIPPET_CHARS = 300
"""A hit's snippet: the start of its best passage."""
_TAG = re.compile(r"<(script|style)\b.*?</\1>|<[^>]+>", re.IGNORECASE | re.DOTALL)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def read_text(path: Path, folder: Path) -> str:
    """The text of the document ``path`` inside ``folder``; ``OSError`` when it cannot or may not be read."""
    return read_bounded(path, limit=MAX_DOCUMENT_BYTES, within=folder).decode("utf-8", errors="replace")


def document_bytes(path: Path, folder: Path) -> bytes | None:
    """The bytes of the document ``path`` inside ``folder``; None when it cannot or may not be read."""
    try:
        return read_bounded(path, limit=MAX_DOCUMENT_BYTES, within=folder)
    except OSError:  # unreadable, or refused: too large, not a regular file, a link out of the folder
        return None


def passages(path: Path, raw: bytes | None) -> tuple[str, list[str]]:
    """The title of the document ``path`` (its bytes: ``raw``) and its text cut into passages of about
    ``PASSAGE_WORDS`` words (none when it could not be read)."""
    if raw is None:
        return path.stem, []
    title, text = readable(path, raw.decode("utf-8", errors="replace"))
    words = text.split()
    return title, [" ".join(words[start : start + PASSAGE_WORDS]) for start in range(0, len(words), PASSAGE_WORDS)]


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
