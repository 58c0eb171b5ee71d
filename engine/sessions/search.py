"""Full-text search over the saved sessions: which session said it, in which message, and the words around it.

A streaming scan, no index (benchmarks/session_search.py measures a thousand sessions): every
session file is read once and sought in its raw bytes, ASCII letters folded, for the longest run of
the text that JSON writes as it is (letters, digits, most punctuation) at any depth of quoting; only
the lines holding that run are decoded and matched in full (case ignored). A text with no such run
is matched in every record. Searched: the session's title, and each message's text and the names
and arguments of the tools it calls. Session files hold no known secret values (the writer scrubbed
them), so neither do snippets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.safe_read import open_checked
from engine.session_store import SessionInfo, SessionStore

SNIPPET_SIDE = 60
"""How many characters of context a snippet keeps on each side of the match."""
HITS_PER_SESSION = 3
"""The most places shown of one session (``SessionHits.more`` says when it holds others)."""
MAX_FILE = 512 * 1024 * 1024
"""A larger session file is not searched (named in ``SearchResult.skipped``)."""
_PLAIN_RUNS = re.compile(r"[A-Za-z0-9 .,:;!?'()\[\]{}<>=+*&^%$#@~`|_-]+")
"""Runs of characters JSON writes as they are, however deeply quoted: these are sought in the raw bytes."""


class SearchHit(Struct, frozen=True, kw_only=True):
    """One place a session holds the text."""

    line: int
    """The line of the session file (1: its header, so the title)."""
    role: str
    """``title``, or the message's role (user, assistant, tool, system)."""
    snippet: str
    """The text around the match, on one line (runs of white space made one space)."""


class SessionHits(Struct, frozen=True, kw_only=True):
    """A session that holds the text, and where (the first places)."""

    session: SessionInfo
    hits: tuple[SearchHit, ...]
    more: bool = False
    """The session holds the text in more places than ``hits`` shows."""


class SearchResult(Struct, frozen=True, kw_only=True):
    """The sessions that hold the text, the one used last first, and the files that could not be searched."""

    sessions: tuple[SessionHits, ...]
    searched: int
    """How many session files were searched."""
    skipped: tuple[str, ...] = ()


def search_sessions(store: SessionStore, text: str) -> SearchResult:
    """The sessions of ``store`` that hold ``text`` (case ignored), the one used last first."""
    if not text.strip():
        raise ValueError("nothing to search for")
    search = _Search(text)
    paths = sorted(store.root.glob("*.jsonl")) if store.root.is_dir() else []
    found: list[SessionHits] = []
    skipped: list[str] = []
    for path in paths:
        try:
            hits = search.file(path, store)
        except OSError as error:
            skipped.append(f"{path}: {error}")
            continue
        if hits is not None:
            found.append(hits)
    found.sort(key=lambda h: (h.session.updated, h.session.created, h.session.id), reverse=True)
    return SearchResult(sessions=tuple(found), searched=len(paths), skipped=tuple(skipped))


class _Search:
    """One text sought: the pattern that matches it, and the raw bytes a line must hold to match."""

    def __init__(self, text: str) -> None:
        self.pattern = re.compile(re.escape(text), re.IGNORECASE)
        runs = _PLAIN_RUNS.findall(text)
        self.raw = max(runs, key=len).lower().encode() if runs else b""

    def file(self, path: Path, store: SessionStore) -> SessionHits | None:
        """Where the session file ``path`` holds the text; None when nowhere (or it is no session)."""
        with open_checked(path) as file:
            data = file.read(MAX_FILE + 1)
        if len(data) > MAX_FILE:
            raise OSError(f"larger than {MAX_FILE // (1024 * 1024)} MB: not searched")
        lowered = data.lower()
        if self.raw and self.raw not in lowered:
            return None
        info = store.info(path)
        if info is None:
            return None
        hits = (
            [SearchHit(line=1, role="title", snippet=self._snippet(info.title))]
            if self.pattern.search(info.title)
            else []
        )
        for number, line in self._lines(data, lowered):
            for role, said in _texts(line):
                if len(hits) > HITS_PER_SESSION:
                    break
                if self.pattern.search(said):
                    hits.append(SearchHit(line=number, role=role, snippet=self._snippet(said)))
            if len(hits) > HITS_PER_SESSION:
                break
        if not hits:
            return None
        return SessionHits(session=info, hits=tuple(hits[:HITS_PER_SESSION]), more=len(hits) > HITS_PER_SESSION)

    def _lines(self, data: bytes, lowered: bytes) -> Iterator[tuple[int, bytes]]:
        """(number, line) for each line after the header that holds the raw run (every line when there is none)."""
        start = data.find(b"\n") + 1
        number = 2
        while 0 < start < len(data):
            found = lowered.find(self.raw, start)
            if found == -1:
                return
            line_start = data.rfind(b"\n", 0, found) + 1
            end = data.find(b"\n", found)
            end = len(data) if end == -1 else end
            number += data.count(b"\n", start, line_start)
            yield number, data[line_start:end]
            start, number = end + 1, number + 1

    def _snippet(self, text: str) -> str:
        match = self.pattern.search(text)
        assert match is not None
        start, end = max(0, match.start() - SNIPPET_SIDE), min(len(text), match.end() + SNIPPET_SIDE)
        cut = " ".join(text[start:end].split())
        return ("…" if start > 0 else "") + cut + ("…" if end < len(text) else "")


def _texts(line: bytes) -> Iterator[tuple[str, str]]:
    """(role, text) for each searchable text of a session line; a damaged line or another record has none."""
    try:
        record = json.loads(line.decode("utf-8"))
    except ValueError:
        return
    message = record.get("message") if isinstance(record, dict) and record.get("type") == "message" else None
    if not isinstance(message, dict):
        return
    role = str(message.get("role", ""))
    yield from ((role, text) for text in _content_texts(message.get("content")))
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            name, arguments = function.get("name"), function.get("arguments")
            yield role, f"{name}({arguments if isinstance(arguments, str) else json.dumps(arguments)})"


def _content_texts(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield part["text"]
