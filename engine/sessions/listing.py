"""Listing sessions, the one used last first: the latest few through the index, every one by reading the folder.

The latest ``limit`` sessions (``hive sessions list``, ``--continue``, ``/sessions``) are found through
the index (:mod:`engine.sessions.index`): from its end, a bounded set of candidate ids of the folder
asked for, each file's modification time (which every append moves) ordering them as a full
listing would, then the headers of the first ``limit`` read. What that costs follows ``limit``, not
how many sessions are kept. Without an index (the first listing after an upgrade, or it was
removed) the folder is read whole once, and the index built from it.

A listing with no limit reads every file of the folder, so it also shows sessions the index does
not know (files copied in by hand).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from engine.sessions import index
from engine.sessions.info import SUFFIX, SessionInfo, SessionListing, read_info

CANDIDATES_PER_SHOWN = 2
MIN_CANDIDATES = 4
"""The index is read until ``max(2 * limit, 4)`` candidate files are found, then they are ordered by time."""


def scan(root: Path, cwd: Path | None, limit: int | None) -> SessionListing:
    """Sessions of ``root``, the one used last first (only those started in ``cwd`` when given), at most ``limit``."""
    if limit is None:
        return _listing(iter(_newest_first(root)), cwd, limit)
    newest = index.open_newest(root)
    if newest is None:
        return _listing(_all_and_build(root), cwd, limit)
    with newest:
        return _listing(_candidates(root, newest, cwd, limit), cwd, limit)


def _listing(paths: Iterator[Path], cwd: Path | None, limit: int | None) -> SessionListing:
    """The sessions among ``paths`` (files of one folder) started in ``cwd``, up to ``limit``, and the files that
    were not sessions."""
    real_folder: Path | None = None  # resolved once: each file is then opened without resolving its path again
    infos: list[SessionInfo] = []
    skipped: list[Path] = []
    unplaced: list[SessionInfo] = []
    for path in paths:
        if limit is not None and len(infos) >= limit:
            return SessionListing(sessions=tuple(infos), skipped=tuple(skipped), unplaced=tuple(unplaced), more=True)
        real_folder = real_folder or Path(os.path.realpath(path.parent))
        info = read_info(path, real_folder=real_folder)
        if info is None:
            skipped.append(path)
        elif cwd is None or info.cwd == str(cwd):
            infos.append(info)
        elif info.damaged_header:
            unplaced.append(info)
    return SessionListing(sessions=tuple(infos), skipped=tuple(skipped), unplaced=tuple(unplaced))


def _candidates(root: Path, newest: index.NewestFirst, cwd: Path | None, limit: int) -> Iterator[Path]:
    """The indexed session files of ``cwd`` in order of time, a batch of candidates at a time."""
    ids = newest.ids(None if cwd is None else str(cwd))
    wanted = max(CANDIDATES_PER_SHOWN * limit, MIN_CANDIDATES)
    while batch := _stamped(root, ids, wanted):
        yield from batch


def _stamped(root: Path, ids: Iterator[str], wanted: int) -> list[Path]:
    """The files of the next ``wanted`` ids whose file is there, the last modified first (then the newest name)."""
    folder = os.fspath(root)
    stamped: list[tuple[int, str]] = []
    for session_id in ids:  # ids the index checked: a name, never a path
        name = f"{session_id}{SUFFIX}"
        try:
            stamped.append((os.stat(os.path.join(folder, name), follow_symlinks=False).st_mtime_ns, name))
        except OSError:  # pruned or removed since its line was written
            continue
        if len(stamped) >= wanted:
            break
    stamped.sort(reverse=True)
    return [root / name for _, name in stamped]


def _all_and_build(root: Path) -> Iterator[Path]:
    """Every file of the folder (newest first), the index built from what their headers say on the way."""
    paths = _newest_first(root)
    if not root.is_dir():
        return iter(paths)
    real_folder = Path(os.path.realpath(root))
    infos = [read_info(path, real_folder=real_folder) for path in reversed(paths)]
    try:
        if index.build(root, [_line(info) for info in infos if info is not None]):
            _note_late(root, {path.name for path in paths}, real_folder)
    except OSError:
        pass  # a folder hive cannot write: listed the slow way until it can
    return iter(paths)


def _note_late(root: Path, read: set[str], real_folder: Path) -> None:
    """Add to the index the sessions made while the folder was read (they found no index to note themselves in)."""
    late = [path for path in _newest_first(root) if path.name not in read]
    for info in (read_info(path, real_folder=real_folder) for path in reversed(late)):
        if info is not None:
            index.record(root, info.id, info.cwd)


def _line(info: SessionInfo) -> index.IndexLine:
    return index.IndexLine(id=info.id, cwd=info.cwd, t=info.updated)


def _newest_first(root: Path) -> list[Path]:
    """The ``*.jsonl`` files of ``root``, the last modified first (then by name, newest id first)."""
    stamped: list[tuple[int, str, Path]] = []
    try:
        entries = list(os.scandir(root))
    except OSError:  # no folder yet, or unreadable
        return []
    for entry in entries:
        if entry.name.endswith(SUFFIX):
            try:
                stamped.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.name, Path(entry.path)))
            except OSError:
                continue
    stamped.sort(reverse=True)
    return [path for _, _, path in stamped]
