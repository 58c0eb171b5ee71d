"""What a session file says about itself (its header), and the records a listing of sessions returns."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.session_reading import has_messages, read_header

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""What a session id may be (its file is ``ID.jsonl`` in the sessions folder)."""
SUFFIX = ".jsonl"


class SessionInfo(Struct, frozen=True, kw_only=True):
    """What a session file says about itself."""

    id: str
    path: Path
    cwd: str
    model: str
    created: float
    updated: float = 0.0
    """When the session was last written to (its file's modification time)."""
    title: str = ""
    damaged_header: bool = False
    """Its first line could not be read: where (``cwd`` is empty) and with which model it began are unknown."""
    parent: str = ""
    """The session it was forked from ("" when none)."""


class SessionListing(Struct, frozen=True, kw_only=True):
    """The sessions found, and the files in the folder that could not be read as sessions."""

    sessions: tuple[SessionInfo, ...]
    skipped: tuple[Path, ...] = ()
    unplaced: tuple[SessionInfo, ...] = ()
    """Sessions whose first line is damaged, left out of one project's listing: where they began is unknown."""
    more: bool = False
    """The listing stopped at its limit: there may be older sessions it did not read."""


def session_file(root: Path, session_id: str) -> Path:
    """The file of the session ``session_id`` in the sessions folder ``root``."""
    return root / f"{session_id}{SUFFIX}"


def read_info(path: Path, *, real_folder: Path | None = None) -> SessionInfo | None:
    """What a session file says about itself; None when it is not one.

    A file whose first line is damaged is still a session when later lines hold its messages: it is
    then known by its name alone (where and with which model it began are lost). ``real_folder``: its
    folder, resolved already (a listing resolves it once, rather than each file's path).
    """
    try:
        header = read_header(path) if real_folder is None else _header_in(real_folder, path.name)
        updated = path.stat().st_mtime
        fields = _header_fields(header)
        if fields is None:
            return _headless_info(path, updated) if has_messages(path) else None
    except OSError:  # unreadable, or not a regular file (safe_read refused it)
        return None
    cwd, model, title, created = fields
    parent = header.get("parent")
    parent = parent if isinstance(parent, str) else ""
    return SessionInfo(
        id=path.stem, path=path, cwd=cwd, model=model, created=created, updated=updated, title=title, parent=parent
    )


def _header_in(real_folder: Path, name: str) -> Any:
    return read_header(real_folder / name, resolved=True)


def _header_fields(header: Any) -> tuple[str, str, str, float] | None:
    """cwd, model, title and creation time of a session header; None when it is not one."""
    if not isinstance(header, dict) or header.get("type") != "session":
        return None
    created = header.get("created", 0)
    texts = [header.get(name, "") for name in ("cwd", "model", "title")]
    if isinstance(created, bool) or not isinstance(created, int | float) or not all(isinstance(t, str) for t in texts):
        return None
    return texts[0], texts[1], texts[2], float(created)


def _headless_info(path: Path, updated: float) -> SessionInfo:
    return SessionInfo(id=path.stem, path=path, cwd="", model="", created=updated, updated=updated, damaged_header=True)
