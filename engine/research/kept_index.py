"""The docs provider's index kept between runs: one msgpack file per documents folder, in the user cache.

The file is ``research/docs-<digest>.msgpack`` under hive's cache folder, the digest naming the folder's
real path (which the file also holds). Each document is kept with its stamp (size, modification and
change times, inode); a later run trusts a document's entries while its stamp is the same. The file is
written whole under a temporary name and renamed (two runs at once: the last one's file stays), 0600,
read back through ``engine.safe_read`` within a bound; one that is damaged, inconsistent, for another
folder or from another format is ignored (and replaced by the next write).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import msgspec
import numpy as np
from msgspec import Struct

from engine.paths import user_cache_dir
from engine.private_files import replace_private_bytes
from engine.research.bm25 import PassageIndex
from engine.safe_read import read_bounded

FORMAT = 1
"""Changed whenever what is kept, or how text becomes words, changes: an older file is then rebuilt."""
MAX_KEPT_BYTES = 512 * 1024 * 1024
"""A larger kept index is neither read nor written (the folder is indexed afresh on each run)."""
_INT32 = np.dtype("<i4")
_INT64 = np.dtype("<i8")


class FileStamp(Struct, frozen=True, array_like=True):
    """A document as its folder listing shows it; the same stamp means the same content."""

    path: str
    """Relative to the documents folder, ``/``-separated."""
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int


class KeptFile(Struct, frozen=True, array_like=True):
    """A document as indexed: its stamp, its title, and how many passages it was cut into."""

    stamp: FileStamp
    title: str
    passages: int
    digest: bytes = b""
    """For a document modified just before it was read (its stamp may not change when it is changed
    again at once): a digest of its bytes, checked on the next run. Empty when the stamp suffices."""


class IndexedDocs(Struct, frozen=True):
    """A folder's documents in path order, one snippet per passage (in the same order), and their index."""

    files: list[KeptFile]
    snippets: list[str]
    index: PassageIndex


class _Record(Struct, frozen=True, kw_only=True):
    format: int
    folder: str
    files: list[KeptFile]
    snippets: list[str]
    vocab: list[str]
    lengths: bytes
    starts: bytes
    passages: bytes
    counts: bytes


_DECODER = msgspec.msgpack.Decoder(_Record)


class Unusable(Exception):
    """The kept index exists but cannot be used; ``str(error)`` says why."""


def kept_path(folder: Path, cache: Path | None = None) -> Path:
    """Where the index of ``folder`` (a real path) is kept, under ``cache`` (default: hive's user cache)."""
    digest = hashlib.sha256(os.fsencode(folder)).hexdigest()[:32]
    return (cache or user_cache_dir()) / "research" / f"docs-{digest}.msgpack"


def load(path: Path, folder: Path) -> IndexedDocs | None:
    """The index kept at ``path`` for ``folder``; None when there is none; ``Unusable`` when it cannot be used."""
    try:
        data = read_bounded(path, limit=MAX_KEPT_BYTES)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Unusable(f"cannot be read ({error.strerror or error})") from None
    try:
        record = _DECODER.decode(data)
    except msgspec.DecodeError:
        raise Unusable("is damaged") from None
    if record.format != FORMAT:
        raise Unusable(f"was written in another format ({record.format})")
    if record.folder != os.fsdecode(folder):
        raise Unusable(f"belongs to another folder ({record.folder})")
    return _docs(record)


def save(path: Path, folder: Path, docs: IndexedDocs) -> None:
    """Keep ``docs`` at ``path`` (atomically, 0600); ``OSError`` when it cannot be written."""
    index = docs.index
    record = _Record(
        format=FORMAT,
        folder=os.fsdecode(folder),
        files=docs.files,
        snippets=docs.snippets,
        vocab=index.vocab,
        lengths=index.lengths.astype(_INT32).tobytes(),
        starts=index.starts.astype(_INT64).tobytes(),
        passages=index.passages.astype(_INT32).tobytes(),
        counts=index.counts.astype(_INT32).tobytes(),
    )
    try:
        data = msgspec.msgpack.encode(record)
    except UnicodeEncodeError:  # msgpack strings are UTF-8; a name the file system gave as bytes is not
        raise OSError("a file or folder name is not valid UTF-8") from None
    if len(data) > MAX_KEPT_BYTES:
        raise OSError(f"the index would take {len(data):,} bytes, more than is kept")
    replace_private_bytes(path, data)


def _docs(record: _Record) -> IndexedDocs:
    try:
        index = PassageIndex(
            record.vocab,
            np.frombuffer(record.starts, dtype=_INT64),
            np.frombuffer(record.passages, dtype=_INT32),
            np.frombuffer(record.counts, dtype=_INT32),
            np.frombuffer(record.lengths, dtype=_INT32),
        )
    except ValueError:  # a buffer whose size is not a whole number of its items
        raise Unusable("is damaged") from None
    if not _consistent(record, index):
        raise Unusable("is damaged")
    return IndexedDocs(files=record.files, snippets=record.snippets, index=index)


def _consistent(record: _Record, index: PassageIndex) -> bool:
    """Whether the arrays fit together, so a search can never index outside them."""
    size = index.size
    starts = index.starts
    return bool(
        sum(kept.passages for kept in record.files) == size == len(record.snippets)
        and all(kept.passages >= 0 for kept in record.files)
        and len(starts) == len(record.vocab) + 1
        and starts[0] == 0
        and starts[-1] == len(index.passages) == len(index.counts)
        and np.all(np.diff(starts) >= 0)
        and (len(index.passages) == 0 or (index.passages.min() >= 0 and index.passages.max() < size))
        and np.all(index.counts > 0)
        and np.all(index.lengths >= 0)
    )
