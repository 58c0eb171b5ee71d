"""The map of a session's first request, kept whole between sessions so a session's start rarely builds it.

Building the map asks the read rules about every file, reads and hashes each, ranks and renders with the
model's tokenizer: a third of a second on a repository of a thousand files even when every file's tags
are cached. What it shows depends only on the files (their list and content), the read rules, the budget,
the file limit and the tokenizer, so the rendered section is kept under a key made of those: the rules'
and the sandbox's settings, the options, the model, and each candidate file's path, size, modification
time and inode. Listing and stating the files costs a few milliseconds; a key that matches returns the
kept text. The file is ``repomap/section-<digest>.msgpack`` under hive's cache folder (never in the
project), written whole and 0600; one that is damaged, for another folder or of another format is
ignored and replaced.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import msgspec
from msgspec import Struct

from engine.paths import user_cache_dir
from engine.private_files import replace_private_bytes
from engine.repomap.cache import FORMAT as TAGS_FORMAT
from engine.repomap.languages import LanguageSpec
from engine.safe_read import read_bounded

FORMAT = 1
"""Changed whenever the section's text or the key's parts change: an older file is then ignored."""
MAX_KEPT_BYTES = 4 * 1024 * 1024


class _Kept(Struct, frozen=True, kw_only=True):
    format: int
    folder: str
    key: str
    text: str
    """The section, or empty when the map showed nothing."""


_DECODER = msgspec.msgpack.Decoder(_Kept)


def section_key(root: Path, candidates: Sequence[tuple[str, LanguageSpec]], settings: object) -> str:
    """The key of the map of ``root`` from ``candidates`` under ``settings`` (anything msgspec encodes)."""
    digest = hashlib.sha256(f"{FORMAT}:{TAGS_FORMAT}\0".encode())
    digest.update(msgspec.msgpack.encode(settings, enc_hook=str))
    for relative, spec in candidates:
        try:
            found = os.stat(root / relative, follow_symlinks=False)
        except OSError:
            stamp = "missing"
        else:
            stamp = f"{found.st_size}:{found.st_mtime_ns}:{found.st_ino}"
        digest.update(f"\0{relative}\0{spec.name}\0{stamp}".encode(errors="surrogateescape"))
    return digest.hexdigest()


def section_path(folder: Path, cache: Path | None = None) -> Path:
    """Where the section of ``folder`` (a real path) is kept, under ``cache`` (default: hive's user cache)."""
    digest = hashlib.sha256(os.fsencode(folder)).hexdigest()[:32]
    return (cache or user_cache_dir()) / "repomap" / f"section-{digest}.msgpack"


def load_section(path: Path, folder: Path, key: str) -> str | None:
    """The section kept at ``path`` for ``folder`` under ``key``; None when there is none that matches."""
    try:
        kept = _DECODER.decode(read_bounded(path, limit=MAX_KEPT_BYTES))
    except (OSError, msgspec.DecodeError):
        return None
    if kept.format != FORMAT or kept.folder != os.fsdecode(folder) or kept.key != key:
        return None
    return kept.text


def save_section(path: Path, folder: Path, key: str, text: str) -> None:
    """Keep ``text`` as the section of ``folder`` under ``key``; a section that cannot be kept is built again."""
    try:
        data = msgspec.msgpack.encode(_Kept(format=FORMAT, folder=os.fsdecode(folder), key=key, text=text))
        if len(data) <= MAX_KEPT_BYTES:
            replace_private_bytes(path, data)
    except (OSError, UnicodeEncodeError):
        pass
