"""Which files the map reads, and reading one: the search tools' view of the project, minus what must stay out.

The files are those :func:`engine.tools.ignore.walk_files` lists (``.gitignore`` applied inside a
repository, ``.git`` skipped, links neither followed nor listed) in a language the map reads. A file the
built-in secret list names (``secrets/``, ``*.pem``...) is never read, nor one the caller's ``readable``
refuses (the read rules); a file is read through :func:`engine.safe_read.read_bounded` within the root,
and one that is too large or binary is skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from engine.repomap.languages import LanguageSpec, language_of
from engine.safe_read import read_bounded
from engine.secret_files import is_secret_file, is_secret_folder
from engine.tools.ignore import walk_files

MAX_FILE_BYTES = 512 * 1024
"""A larger source file is skipped (generated or vendored code, as a rule)."""
BINARY_PROBE = 8192
"""A NUL byte among this many first bytes marks a file as binary."""

Readable = Callable[[str], bool]
"""Whether the read rules let the model see the file at a root-relative path."""


def candidate_files(root: Path) -> Iterator[tuple[str, LanguageSpec]]:
    """The files under ``root`` in a language the map reads and not on the secret list, with their language.

    Root-relative and ``/``-separated, in :func:`engine.tools.ignore.walk_files` order; the read rules are not
    asked yet (see :func:`readable_files`).
    """
    for relative in walk_files(root):
        spec = language_of(relative)
        if spec is not None and not _secret(relative):
            yield relative, spec


def readable_files(
    candidates: Iterable[tuple[str, LanguageSpec]], readable: Readable, limit: int
) -> Iterator[tuple[str, LanguageSpec]]:
    """The ``candidates`` the read rules let the model see; at most ``limit``."""
    count = 0
    for relative, spec in candidates:
        if not readable(relative):
            continue
        if count >= limit:
            return
        count += 1
        yield relative, spec


def _secret(relative: str) -> bool:
    """Whether the built-in secret list names the file or a folder it is in."""
    parts = relative.split("/")
    folders = ("/".join(parts[:end]) for end in range(1, len(parts)))
    return is_secret_file(relative) or any(is_secret_folder(folder) for folder in folders)


def read_source(root: Path, relative: str) -> bytes | None:
    """The bytes of ``relative`` under ``root``; None when it is too large, binary, refused or unreadable."""
    try:
        data = read_bounded(root / relative, limit=MAX_FILE_BYTES, within=root)
    except OSError:  # missing, unreadable, or refused (a link out of the root, a FIFO, too large)
        return None
    return None if b"\0" in data[:BINARY_PROBE] else data
