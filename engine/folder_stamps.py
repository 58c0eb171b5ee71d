"""The files a folder tree holds, with a stamp of every folder walked: one stat per folder says it is unchanged.

Adding, removing or renaming a file changes its folder's modification and change times (an editor that
saves by writing a new file and renaming it over the old one does too), so a listing stays true while
every folder it walked keeps its stamp, and checking that costs one stat per folder, not one per file.
Editing a file in place changes no folder: whoever needs a file's current text checks the file itself.

A file system keeps times at some granularity (a clock tick, or a whole second on some): a change in the
same tick as the walk could leave a folder's stamp as it was. A walk is therefore trusted only once every
folder it saw had last changed at least :data:`SETTLE_NS` before the walk began; until then the folders
are walked again at each look.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from msgspec import Struct

Stamp = tuple[int, ...]
SETTLE_NS = 2_000_000_000
"""How long before a walk a folder must have last changed for its stamp to be trusted (FAT keeps 2 s)."""


class FolderWalk(Struct, frozen=True, kw_only=True):
    """The files named ``*suffix`` under a root (sorted, links to folders not followed) and the folders' stamps."""

    root: Path
    files: tuple[Path, ...]
    stamps: tuple[tuple[Path, Stamp | None], ...]
    """Every folder walked, the root first; a root that did not exist is here with ``None``."""
    settled: bool
    """Every folder had last changed :data:`SETTLE_NS` or more before the walk began."""

    def unchanged(self) -> bool:
        """Whether the listing is still true: settled, and every folder's stamp as it was (one stat each)."""
        return self.settled and all(folder_stamp(folder) == stamp for folder, stamp in self.stamps)


def folder_stamp(folder: Path) -> Stamp | None:
    """What changes whenever an entry of ``folder`` is added, removed or renamed; None when it is not there."""
    try:
        found = os.stat(folder)
    except OSError:
        return None
    return (found.st_mtime_ns, found.st_ctime_ns, found.st_ino, found.st_dev, found.st_size, found.st_nlink)


def walk(root: Path, suffix: str) -> FolderWalk:
    """Every file (or folder) named ``*suffix`` under ``root``, as ``sorted(root.rglob("*" + suffix))`` finds them."""
    started = time.time_ns()
    files: list[str] = []
    stamps: list[tuple[Path, Stamp | None]] = []
    pending = [root]
    while pending:
        folder = pending.pop()
        stamp = folder_stamp(folder)  # before the listing: a change during the walk shows at the next look
        stamps.append((folder, stamp))
        if stamp is None:
            continue
        try:
            entries = list(os.scandir(folder))
        except OSError:  # not a folder, or unreadable: nothing listed, as rglob does
            continue
        for entry in entries:
            if entry.name.endswith(suffix):
                files.append(entry.path)
            if _is_folder(entry):
                pending.append(Path(entry.path))
    settled = all(stamp is None or stamp[0] < started - SETTLE_NS for _, stamp in stamps)
    ordered = sorted(files, key=lambda name: name.split(os.sep))  # as paths sort: part by part, cheaper
    return FolderWalk(root=root, files=tuple(map(Path, ordered)), stamps=tuple(stamps), settled=settled)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False
