"""How the search tools list and search files: the backend protocol and the pure-Python backend.

Two backends give the same answers for the same tree: :class:`~engine.tools.ripgrep.RipgrepBackend`
(fast, used when ``rg`` is installed) and :class:`PythonSearchBackend` (always available). Both list
regular files that ``.gitignore`` does not exclude (see :mod:`engine.tools.ignore`), hidden files
included, ``.git`` and symbolic links excluded, in depth-first name order; both skip binary files
(a NUL byte anywhere) and files over :data:`MAX_FILE_SIZE` when searching.

Known differences, all in rare corners: the regular-expression dialects differ beyond their common
subset (ripgrep has no look-around or backreferences; Python lacks Unicode property classes), and
ripgrep 14 does not match names ending in ``.`` with ``.gitignore`` patterns such as ``*.`` (git and
the Python backend do).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from msgspec import Struct

from engine.safe_read import read_bounded
from engine.tools.ignore import walk_files

MAX_FILE_SIZE = 20 * 1024 * 1024
"""Files larger than this many bytes are not searched (``rg --max-filesize 20M``)."""


class GrepError(ValueError):
    """A search could not run, e.g. because the pattern is not a valid regular expression."""


class GrepQuery(Struct, frozen=True):
    """What to look for."""

    pattern: str
    """A regular expression in the syntax Python's ``re`` and Rust's ``regex`` share."""
    ignore_case: bool = False
    max_matches: int = 200
    """Stop after this many matching lines."""


class GrepMatch(Struct, frozen=True):
    """One matching line."""

    path: str
    """The file, ``/``-separated and relative to the search root."""
    line: int
    """1-based line number."""
    text: str
    """The line without its line ending."""


class SearchBackend(Protocol):
    """Lists and searches the files under a directory, honouring ``.gitignore``."""

    name: str

    async def list_files(self, root: Path) -> list[str]:
        """Every searchable file under ``root``, relative to it, in depth-first name order."""
        ...

    async def grep(self, root: Path, query: GrepQuery, files: Sequence[str] | None = None) -> list[GrepMatch]:
        """Matching lines under ``root`` (or only in ``files``, relative to ``root``), in file order.

        Raises :class:`GrepError` when the pattern is invalid.
        """
        ...


class PythonSearchBackend:
    """The pure-Python backend: :func:`~engine.tools.ignore.walk_files` plus ``re``, run in a thread."""

    name = "python"

    async def list_files(self, root: Path) -> list[str]:
        """Every searchable file under ``root``, relative to it, in depth-first name order."""
        return await asyncio.to_thread(lambda: list(walk_files(root)))

    async def grep(self, root: Path, query: GrepQuery, files: Sequence[str] | None = None) -> list[GrepMatch]:
        """Matching lines under ``root`` (or only in ``files``), in file order."""
        return await asyncio.to_thread(self._grep, root, query, files)

    def _grep(self, root: Path, query: GrepQuery, files: Sequence[str] | None) -> list[GrepMatch]:
        regex = compile_pattern(query)
        root = root.resolve()
        candidates: Iterable[str] = files if files is not None else walk_files(root)
        matches: list[GrepMatch] = []
        for rel in candidates:
            for match in _search_file(root / rel, rel, regex):
                matches.append(match)
                if len(matches) >= query.max_matches:
                    return matches
        return matches


def compile_pattern(query: GrepQuery) -> re.Pattern[str]:
    """The query's pattern compiled with Python's ``re``; raises :class:`GrepError` when invalid."""
    try:
        return re.compile(query.pattern, re.IGNORECASE if query.ignore_case else 0)
    except re.error as exc:
        raise GrepError(f"Invalid regular expression {query.pattern!r}: {exc}") from exc


def _search_file(path: Path, rel: str, regex: re.Pattern[str]) -> Iterator[GrepMatch]:
    try:
        data = read_bounded(path, limit=MAX_FILE_SIZE, resolved=True)  # listed under the resolved root
    except OSError:  # gone, unreadable, or refused: larger than MAX_FILE_SIZE, no longer a regular file
        return
    if b"\0" in data:
        return
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if regex.search(line):
            yield GrepMatch(rel, number, line.removesuffix("\r"))
