"""What a file or folder of the project holds, as one digest a later look can be compared with.

``sha256:<hex>`` for a regular file (its bytes), a folder (its entries' names, kinds and contents)
or a link (its link text and its target's digest); ``absent``; or ``unpinned: <why>`` when the
content cannot be pinned: a folder over the caps, a link whose target leaves the project, something
that is not a regular file, something unreadable. Reading never blocks (non-blocking open, regular
files only) and is bounded in size.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from engine.safe_read import TooLarge, UnsafeFile, read_bounded

FILE_LIMIT = 8 * 1024 * 1024
"""The largest single file that is pinned (bytes)."""
FOLDER_BYTES = 2 * 1024 * 1024
FOLDER_FILES = 500
"""A folder is pinned only while its files total at most this many bytes and it has at most this many entries."""
ABSENT = "absent"
UNPINNED = "unpinned: "
_GENERATED = frozenset({"__pycache__"})
"""Folders the interpreter writes as the code runs: pinning them would undo an approval on the first start."""


def path_digest(location: Path, root: Path) -> str:
    """The digest of ``location`` (a link there is not followed but hashed with its target), ``root`` a real path."""
    try:
        info = os.lstat(location)
    except FileNotFoundError:
        return ABSENT
    except OSError as exc:
        return f"{UNPINNED}cannot look at it ({exc.strerror})"
    if not stat.S_ISLNK(info.st_mode):
        return _content_digest(location, root)
    target = Path(os.path.realpath(location))
    if not is_within(target, root):
        return f"{UNPINNED}leaves the project (links to {target})"
    inner = _content_digest(target, root)
    if not inner.startswith("sha256:"):
        return inner
    return _sha256(f"link\0{os.readlink(location)}\0{inner}".encode())


def is_within(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it (both taken as written: resolve them first)."""
    return path == root or root in path.parents


def _content_digest(path: Path, root: Path) -> str:
    if path == root:
        return f"{UNPINNED}the whole project folder"
    try:
        if stat.S_ISDIR(os.stat(path).st_mode):
            return _sha256("\n".join(_folder_lines(path, root)).encode())
        return _sha256(_read_bounded(path, FILE_LIMIT))
    except FileNotFoundError:
        return ABSENT
    except OSError as exc:
        return f"{UNPINNED}cannot read it ({exc.strerror})"
    except _Unpinnable as exc:
        return f"{UNPINNED}{exc}"


def _folder_lines(folder: Path, root: Path) -> list[str]:
    """One line per entry (kind, path, what it holds), sorted; ``_Unpinnable`` over the caps."""
    lines: list[str] = []
    budget = FOLDER_BYTES

    def failed(error: OSError) -> None:
        raise error

    for here, folders, files in os.walk(folder, onerror=failed):
        links = [name for name in folders if os.path.islink(os.path.join(here, name))]
        folders[:] = sorted(name for name in folders if name not in _GENERATED and name not in links)
        for name in [*sorted(files), *links, *folders]:
            if len(lines) >= FOLDER_FILES:
                raise _Unpinnable(f"too large to pin (over {FOLDER_FILES} files)")
            path = Path(here) / name
            line, used = _entry_line(path, path.relative_to(folder).as_posix(), root, budget)
            budget -= used
            lines.append(line)
    return sorted(lines)


def _entry_line(path: Path, relative: str, root: Path, budget: int) -> tuple[str, int]:
    """A folder entry's line and the bytes read for it (``_Unpinnable`` once the folder's budget runs out)."""
    info = os.lstat(path)
    if stat.S_ISDIR(info.st_mode):
        return f"dir\0{relative}", 0
    try:
        if stat.S_ISLNK(info.st_mode):
            target = Path(os.path.realpath(path))
            if not is_within(target, root):
                raise _Unpinnable(f"{relative} in it leaves the project (links to {target})")
            data = _read_bounded(target, budget) if target.is_file() else b""
            return f"link\0{relative}\0{os.readlink(path)}\0{_sha256(data)}", len(data)
        if not stat.S_ISREG(info.st_mode):
            return f"other\0{relative}", 0
        data = _read_bounded(path, budget)
        return f"file\0{relative}\0{_sha256(data)}", len(data)
    except _TooLarge:
        raise _Unpinnable(f"too large to pin (over {_size(FOLDER_BYTES)} in its files)") from None


class _Unpinnable(Exception):
    """Why a file cannot be pinned (the text follows ``unpinned: ``)."""


class _TooLarge(_Unpinnable):
    """More bytes than the bound."""


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (:func:`engine.safe_read.read_bounded`)."""
    try:
        return read_bounded(path, limit=limit)
    except TooLarge:
        raise _TooLarge(f"too large to pin (over {_size(limit)})") from None
    except UnsafeFile as refused:
        raise _Unpinnable(refused.reason) from None


def _size(limit: int) -> str:
    return f"{limit / (1024 * 1024):g} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
