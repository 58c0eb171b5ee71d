"""The tags of a folder's files, kept between runs in hive's cache, by content.

The file is ``repomap/tags-<digest>.msgpack`` under hive's cache folder (never in the project), the digest
naming the folder's real path (which the file also holds). An entry's key is the file's language and the
SHA-256 of its bytes, so a file is parsed again only when its content changes (a copy or a rename costs
nothing). Entries no run used are dropped when the file is written. The file is written whole under a
temporary name and renamed, 0600, and read back through ``engine.safe_read`` within a bound; one that is
damaged, for another folder or from another format is ignored (and replaced by the next write).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import msgspec
from msgspec import Struct

from engine.paths import user_cache_dir
from engine.private_files import replace_private_bytes
from engine.repomap.tags import FileTags
from engine.safe_read import read_bounded

FORMAT = 1
"""Changed whenever the tags or the queries that make them change: an older file is then ignored."""
MAX_KEPT_BYTES = 256 * 1024 * 1024
"""A larger cache file is neither read nor written."""


class _Record(Struct, frozen=True, kw_only=True):
    format: int
    folder: str
    entries: dict[str, FileTags]


_DECODER = msgspec.msgpack.Decoder(_Record)


def content_key(language: str, data: bytes) -> str:
    """The cache key of a file of ``language`` holding ``data``."""
    return f"{language}:{hashlib.sha256(data).hexdigest()}"


def cache_path(folder: Path, cache: Path | None = None) -> Path:
    """Where the tags of ``folder`` (a real path) are kept, under ``cache`` (default: hive's user cache)."""
    digest = hashlib.sha256(os.fsencode(folder)).hexdigest()[:32]
    return (cache or user_cache_dir()) / "repomap" / f"tags-{digest}.msgpack"


def load_tags(path: Path, folder: Path) -> dict[str, FileTags]:
    """The tags kept at ``path`` for ``folder`` by content key; empty when there are none or they cannot be used."""
    try:
        record = _DECODER.decode(read_bounded(path, limit=MAX_KEPT_BYTES))
    except (OSError, msgspec.DecodeError):
        return {}
    if record.format != FORMAT or record.folder != os.fsdecode(folder):
        return {}
    return record.entries


def save_tags(path: Path, folder: Path, entries: dict[str, FileTags]) -> None:
    """Keep ``entries`` at ``path`` (atomically, 0600); ``OSError`` when they cannot be written."""
    try:
        data = msgspec.msgpack.encode(_Record(format=FORMAT, folder=os.fsdecode(folder), entries=entries))
    except UnicodeEncodeError:  # a folder name the file system gave as bytes
        raise OSError("a folder name is not valid UTF-8") from None
    if len(data) > MAX_KEPT_BYTES:
        raise OSError(f"the tags would take {len(data):,} bytes, more than is kept")
    replace_private_bytes(path, data)
