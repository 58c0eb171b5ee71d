"""hive's own files are the person's alone, whatever the umask: folders 0700, files 0600.

Session transcripts can hold a password typed into the prompt, MCP server logs a token, the memory
database notes, the trust record decisions: none of it is for other local users. Every folder hive
makes for itself goes through :func:`private_dir` and every file it creates there through
:func:`open_private` (or is narrowed with :func:`make_private`). hive's three root folders (config,
data, cache) are narrowed to 0700 when hive writes under them, since earlier versions made them 0755.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Literal, TextIO

from engine.paths import user_cache_dir, user_config_dir, user_data_dir

_FLAGS = {
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
}


def private_dir(folder: Path) -> Path:
    """``folder``, made (with any missing parents) readable by its owner only; hive's root folders are narrowed."""
    missing: list[Path] = []
    step = folder
    while not step.exists() and step != step.parent:
        missing.append(step)
        step = step.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
        make_private(path)
    for root in (user_config_dir(), user_data_dir(), user_cache_dir()):
        if folder == root or root in folder.parents:
            make_private(root)
    return folder


def open_private(path: Path, mode: Literal["a", "w", "x"] = "a") -> TextIO:
    """``path`` opened for writing text, created 0600 (an existing file of ours is narrowed to 0600)."""
    return os.fdopen(_private_descriptor(path, mode), mode, encoding="utf-8")


def open_private_bytes(path: Path, mode: Literal["a", "w", "x"] = "a") -> BinaryIO:
    """``path`` opened for writing bytes, created 0600 (an existing file of ours is narrowed to 0600)."""
    descriptor = _private_descriptor(path, mode)
    if mode == "a":
        return os.fdopen(descriptor, "ab")
    return os.fdopen(descriptor, "wb")  # the file is new or emptied already: only appending differs


def replace_private_bytes(path: Path, data: bytes) -> None:
    """Make ``data`` the whole of ``path`` (0600) at once: written under a temporary name beside it, then renamed
    over it; its folder is made private first. ``OSError`` when it cannot be written (nothing is left behind)."""
    private_dir(path.parent)
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open_private_bytes(partial, "x") as out:
            out.write(data)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _private_descriptor(path: Path, mode: Literal["a", "w", "x"]) -> int:
    descriptor = os.open(path, _FLAGS[mode] | os.O_CLOEXEC, 0o600)
    with contextlib.suppress(OSError):
        if os.fstat(descriptor).st_uid == os.getuid():
            os.fchmod(descriptor, 0o600)
    return descriptor


def make_private(path: Path) -> None:
    """Narrow ``path`` (ours) to its owner: 0700 for a folder, 0600 for a file; a failure is not an error."""
    with contextlib.suppress(OSError):
        info = os.stat(path, follow_symlinks=False)
        if info.st_uid != os.getuid():
            return
        wanted = 0o700 if os.path.isdir(path) and not os.path.islink(path) else 0o600
        if info.st_mode & 0o777 != wanted:
            os.chmod(path, wanted, follow_symlinks=False)


@contextlib.contextmanager
def locked(folder: Path, name: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder/name`` (made 0600 in a private ``folder``): one read-modify-write at a time."""
    descriptor = os.open(private_dir(folder) / name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)
