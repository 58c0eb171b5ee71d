"""Putting a whole session file in place at once, under an id no other session has.

The file is written whole under a temporary name in the sessions folder (not ``*.jsonl``, so no
listing sees it half written), then linked to its final name, which fails rather than replace a file
already there: a new id is then made and the file written again. So a fork or an import never
overwrites a session, and a crash leaves at most a temporary file behind, never half a session.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from engine.disk_full import writing
from engine.paths import unusable_user_dir
from engine.private_files import open_private_bytes, private_dir
from engine.session_store import SESSION_ID, new_session_id

Contents = Callable[[str], bytes]
"""The bytes of the session file, given the id it is about to get (its header names it)."""


def place_session(root: Path, contents: Contents, wanted: str | None = None) -> str:
    """Write the session ``contents(id)`` makes as ``root/ID.jsonl`` under a free id (``wanted`` if it is); the id."""
    try:
        private_dir(root)
    except OSError as error:
        raise unusable_user_dir(root, error) from error
    session_id = wanted if wanted and SESSION_ID.fullmatch(wanted) else new_session_id()
    while True:
        final = root / f"{session_id}.jsonl"
        if not final.exists() and _linked(root, contents(session_id), final):
            return session_id
        session_id = new_session_id()


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` as ``path`` (0600) at once: a temporary file beside it, renamed over it when complete."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with writing(str(path), path.parent, f"{path} is unchanged"):
            _write(temporary, data)
            os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _linked(root: Path, data: bytes, final: Path) -> bool:
    """Whether ``data`` is now ``final``; False when another file took that name first."""
    temporary = root / f".placing-{secrets.token_hex(6)}.tmp"
    try:
        with writing("the session file", root, "nothing of it was saved"):
            _write(temporary, data)
            os.link(temporary, final)
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()
    return True


def _write(path: Path, data: bytes) -> None:
    with open_private_bytes(path, "x") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
