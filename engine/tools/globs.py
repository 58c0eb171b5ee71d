"""Glob patterns for file names and paths, as the search tools accept them: the language of :mod:`engine.globs`.

A pattern without ``/`` matches a file's name at any depth (``*.py`` finds every Python file, as in
``.gitignore`` and ``rg --glob``); a pattern with ``/`` matches the whole path relative to the search
root (``src/*.ts`` only finds files directly in ``src``).
"""

from __future__ import annotations

import re

from engine.globs import GlobError, never, path_glob

_MAGIC = re.compile(r"[*?\[{]")


class GlobMatcher:
    """A compiled glob pattern; :meth:`matches` tests ``/``-separated paths relative to the search root."""

    def __init__(self, pattern: str, *, anchored: bool = False) -> None:
        """Compile ``pattern``; with ``anchored`` it always matches whole paths, even without ``/``.

        Raises ``ValueError`` when the pattern cannot be compiled.
        """
        pattern = pattern.strip()
        while pattern.startswith("./"):
            pattern = pattern[2:]
        pattern = pattern.lstrip("/")
        self.pattern = pattern
        try:
            self._regex = path_glob(pattern, anchored=anchored) if pattern else never()
        except GlobError as exc:
            raise ValueError(f"Invalid glob pattern {pattern!r}: {exc}") from exc

    def matches(self, rel_path: str) -> bool:
        """Whether the file at ``rel_path`` matches."""
        return self._regex.fullmatch(rel_path) is not None


def split_base(pattern: str) -> tuple[str, str]:
    """Split the literal leading directories off a pattern: ``/src/app/**/*.py`` -> (``/src/app``, ``**/*.py``).

    Returns ``("", pattern)`` when the first segment already has a wildcard.
    """
    segments = pattern.split("/")
    literal = 0
    while literal < len(segments) - 1 and not _MAGIC.search(segments[literal]):
        literal += 1
    base = "/".join(segments[:literal])
    if pattern.startswith("/") and not base:
        base = "/"
    return base, "/".join(segments[literal:])
