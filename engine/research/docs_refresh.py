"""Bringing a folder's index up to date: list its documents, keep what an unchanged one had, read the rest.

A document is unchanged when its stamp (size, modification and change times, inode) is the one kept,
and, if it had been modified just before it was read, its bytes still have the digest kept (as git
does for "racily clean" files); then its passages, snippets and counts are taken over as they are.
New and changed documents are read and cut into passages; deleted ones are dropped. The result equals an index built afresh (same
passages in the same order), so searches give the same answers either way.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import numpy as np
from msgspec import Struct
from msgspec.structs import replace

from engine.research.bm25 import PassageIndex, merged, words
from engine.research.docs_text import SNIPPET_CHARS, SUFFIXES, document_bytes, passages
from engine.research.kept_index import FileStamp, IndexedDocs, KeptFile

RACY_NS = 2_000_000_000
"""A document modified less than this before the scan could be changed again without its stamp changing
(file times are coarser than the clock: a few milliseconds on Linux, two seconds on FAT): its bytes'
digest is kept and compared on the next run."""


class IndexReport(Struct, frozen=True, kw_only=True):
    """How a folder's index was brought up to date."""

    files: int
    """Documents indexed."""
    read: int
    """Documents read now: new, changed, or all of them without a usable kept index."""
    kept: int
    """Documents whose entries were taken from the kept index."""
    gone: int
    """Documents the kept index had that are no longer there."""
    changed: bool
    """The index differs from the kept one (or there was none): it is worth keeping again."""
    note: str = ""
    """Why the kept index could not be used or written, when it could not."""


class _Position(Struct, frozen=True):
    kept: KeptFile
    first: int
    """Its first passage's number in the kept index."""


def refresh(folder: Path, previous: IndexedDocs | None) -> tuple[IndexedDocs, IndexReport]:
    """The index of ``folder``'s documents, reusing ``previous`` for every unchanged one, and what it took."""
    started_ns = time.time_ns()
    found = scan(folder)
    if previous is not None and _all_settled(previous.files, found):
        return previous, IndexReport(files=len(found), read=0, kept=len(found), gone=0, changed=False)
    old = previous or IndexedDocs(files=[], snippets=[], index=PassageIndex.empty())
    update = _Update(folder, old, recent_ns=started_ns - RACY_NS)
    for stamp in found:
        update.add(stamp)
    gone = len(update.positions.keys() - {stamp.path for stamp in found})
    report = IndexReport(files=len(found), read=len(found) - update.reused, kept=update.reused, gone=gone, changed=True)
    return update.result(), report


def _all_settled(files: list[KeptFile], found: list[FileStamp]) -> bool:
    """Every document is as kept, and none was modified too recently for its stamp alone to tell."""
    return len(files) == len(found) and all(
        kept.stamp == stamp and not kept.digest for kept, stamp in zip(files, found, strict=True)
    )


class _Update:
    """The new index's files and snippets, in order, and which passages come from where."""

    def __init__(self, folder: Path, old: IndexedDocs, *, recent_ns: int) -> None:
        self.folder = folder
        self.old = old
        self.recent_ns = recent_ns
        """A document modified since then gets a digest: it may change again within its time stamp's granularity."""
        self.positions = _positions(old.files)
        self.moved = np.full(old.index.size, -1, dtype=np.int32)
        """Each kept passage's new number (-1: dropped)."""
        self.files: list[KeptFile] = []
        self.snippets: list[str] = []
        self.fresh: list[tuple[int, list[str]]] = []
        self.reused = 0

    def add(self, stamp: FileStamp) -> None:
        """The document ``stamp`` comes next: its kept entries if it is unchanged, else read now."""
        prior = self.positions.get(stamp.path)
        if prior is None or prior.kept.stamp != stamp:
            self._read(stamp, document_bytes(self.folder / stamp.path, self.folder))
        elif not prior.kept.digest:
            self._reuse(prior, prior.kept)
        else:
            raw = document_bytes(self.folder / stamp.path, self.folder)
            if raw is not None and _digest(raw) == prior.kept.digest:
                self._reuse(prior, replace(prior.kept, digest=self._digest_if_recent(stamp, raw)))
            else:
                self._read(stamp, raw)

    def _reuse(self, prior: _Position, kept: KeptFile) -> None:
        number, first, count = len(self.snippets), prior.first, prior.kept.passages
        self.moved[first : first + count] = np.arange(number, number + count, dtype=np.int32)
        self.snippets += self.old.snippets[first : first + count]
        self.files.append(kept)
        self.reused += 1

    def _read(self, stamp: FileStamp, raw: bytes | None) -> None:
        number = len(self.snippets)
        title, texts = passages(self.folder / stamp.path, raw)
        self.fresh += [(number + offset, words(text)) for offset, text in enumerate(texts)]
        self.snippets += [text[:SNIPPET_CHARS] for text in texts]
        digest = self._digest_if_recent(stamp, raw) if raw is not None else b""
        self.files.append(KeptFile(stamp, title, len(texts), digest))

    def _digest_if_recent(self, stamp: FileStamp, raw: bytes) -> bytes:
        return _digest(raw) if stamp.mtime_ns >= self.recent_ns else b""

    def result(self) -> IndexedDocs:
        """The updated documents and their index."""
        index = merged(self.old.index, self.moved, self.fresh, len(self.snippets))
        return IndexedDocs(files=self.files, snippets=self.snippets, index=index)


def _digest(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=16).digest()


def scan(folder: Path) -> list[FileStamp]:
    """The documents under ``folder`` (hidden files and folders skipped, links to folders not followed), in path order."""
    found: list[FileStamp] = []
    _walk(os.fspath(folder), "", found)
    return found


def _walk(directory: str, prefix: str, found: list[FileStamp]) -> None:
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:  # unreadable, or gone meanwhile
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                _walk(entry.path, f"{prefix}{entry.name}/", found)
            elif os.path.splitext(entry.name)[1].lower() in SUFFIXES and entry.is_file():
                info = entry.stat()
                found.append(
                    FileStamp(f"{prefix}{entry.name}", info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
                )
        except OSError:
            continue


def _positions(files: list[KeptFile]) -> dict[str, _Position]:
    positions: dict[str, _Position] = {}
    first = 0
    for kept in files:
        positions[kept.stamp.path] = _Position(kept, first)
        first += kept.passages
    return positions
