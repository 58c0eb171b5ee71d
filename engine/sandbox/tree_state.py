"""What a protected path holds at one moment: each entry's kind, mode and stamp, and a copy of small files.

Read without following links (see :mod:`engine.sandbox.nofollow`), bounded in entries and in bytes
copied. Copies are kept between commands and reused while a file's stamp does not move, so an
unchanged protected file is read once per session, not once per command.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from typing import Literal

from msgspec import Struct

from engine.sandbox.nofollow import folder_at, lstat_at, opened_folder, read_at

MAX_ENTRIES = 2_000
"""Entries read under one protected path; past it the state is incomplete."""
MAX_COPY = 1 << 20
"""The largest file a copy is kept of (bytes); a larger protected file can be checked, not put back."""
MAX_COPIES = 64 << 20
"""Bytes of copies kept for one writable root."""

NodeKind = Literal["file", "folder", "link", "other"]
Stamp = tuple[int, int, int, int, int]


class Node(Struct, frozen=True, kw_only=True):
    """One entry: what it is, its permission bits, and what it held (a small file's bytes, a link's target)."""

    kind: NodeKind
    mode: int
    stamp: Stamp
    """Inode, size, modification and change times, mode: a change to the entry moves one of them."""
    mtime_ns: int
    content: bytes | None = None
    target: str | None = None


class TreeState(Struct, frozen=True):
    """The entries at and under one protected path, keyed by their path under the writable root ("a/b")."""

    nodes: dict[str, Node]
    complete: bool = True
    """False when entries were left unread (the walk's bound, or the path was not looked for before)."""


Descend = Callable[[str], bool]


class Copies:
    """Copies of small protected files of one writable root, by path and stamp (thread-safe)."""

    def __init__(self, budget: int = MAX_COPIES) -> None:
        self.budget = budget
        self._kept: dict[str, tuple[Stamp, bytes]] = {}
        self._used = 0
        self._lock = threading.Lock()

    def get(self, rel: str, stamp: Stamp) -> bytes | None:
        """The copy of ``rel`` taken when its stamp was ``stamp``, or None."""
        with self._lock:
            kept = self._kept.get(rel)
        return kept[1] if kept is not None and kept[0] == stamp else None

    def keep(self, rel: str, stamp: Stamp, content: bytes) -> bool:
        """Keep a copy of ``rel``; False when the budget has no room left for it."""
        with self._lock:
            old = self._kept.get(rel)
            used = self._used - (len(old[1]) if old is not None else 0)
            if used + len(content) > self.budget:
                return False
            self._kept[rel] = (stamp, content)
            self._used = used + len(content)
            return True

    def forget_except(self, kept: set[str]) -> None:
        """Drop the copies of paths no longer protected."""
        with self._lock:
            for rel in [rel for rel in self._kept if rel not in kept]:
                self._used -= len(self._kept.pop(rel)[1])


def read_state(root: str, rel: str, *, copies: Copies | None, descend: Descend | None = None) -> TreeState:
    """The state of ``root/rel`` and what is under it; with ``copies``, small files are copied (or reused).

    ``descend`` says which folders to walk into (all by default). A path whose folders cannot be
    reached without following a link reads as absent.
    """
    parts = rel.split("/")
    reader = _Reader(copies, descend or _always)
    try:
        with opened_folder(root, parts[:-1]) as fd:
            reader.visit(fd, parts[-1], rel)
    except OSError:
        return TreeState({}, complete=True)
    return TreeState(reader.nodes, complete=reader.left >= 0)


def read_content(root: str, rel: str, limit: int) -> bytes | None:
    """The bytes of the file ``root/rel`` now (links refused), or None when it is larger than ``limit`` or gone."""
    parts = rel.split("/")
    try:
        with opened_folder(root, parts[:-1]) as fd:
            return read_at(fd, parts[-1], limit)
    except OSError:
        return None


def _always(rel: str) -> bool:
    return True


class _Reader:
    def __init__(self, copies: Copies | None, descend: Descend) -> None:
        self.copies = copies
        self.descend = descend
        self.nodes: dict[str, Node] = {}
        self.left = MAX_ENTRIES

    def visit(self, fd: int, name: str, rel: str) -> None:
        st = lstat_at(fd, name)
        if st is None:
            return
        self.left -= 1
        node = self._node(fd, name, rel, st)
        self.nodes[rel] = node
        if node.kind != "folder" or not self.descend(rel):
            return
        if self.left <= 0:
            self.left = -1  # a folder left unread
            return
        self._walk(fd, name, rel)

    def _walk(self, fd: int, name: str, rel: str) -> None:
        try:
            child_fd = folder_at(fd, name)
        except OSError:
            return
        try:
            with os.scandir(child_fd) as listing:
                names = sorted(entry.name for entry in listing)
            for child in names:
                if self.left <= 0:
                    self.left = -1
                    return
                self.visit(child_fd, child, f"{rel}/{child}")
        finally:
            os.close(child_fd)

    def _node(self, fd: int, name: str, rel: str, st: os.stat_result) -> Node:
        mode = st.st_mode
        stamp: Stamp = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, mode)
        kind: NodeKind = (
            "folder"
            if stat.S_ISDIR(mode)
            else "file"
            if stat.S_ISREG(mode)
            else "link"
            if stat.S_ISLNK(mode)
            else "other"
        )
        content = self._copy(fd, name, rel, stamp) if kind == "file" else None
        target = _link_target(fd, name) if kind == "link" else None
        return Node(
            kind=kind, mode=stat.S_IMODE(mode), stamp=stamp, mtime_ns=st.st_mtime_ns, content=content, target=target
        )

    def _copy(self, fd: int, name: str, rel: str, stamp: Stamp) -> bytes | None:
        if self.copies is None or stamp[1] > MAX_COPY:
            return None
        kept = self.copies.get(rel, stamp)
        if kept is not None:
            return kept
        content = read_at(fd, name, MAX_COPY)
        if content is None or not self.copies.keep(rel, stamp, content):
            return None
        return content


def _link_target(fd: int, name: str) -> str | None:
    try:
        return os.readlink(name, dir_fd=fd)
    except OSError:
        return None
