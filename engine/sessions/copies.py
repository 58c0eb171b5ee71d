"""Forking a session, and exporting one to a single file and importing it back.

A fork is a new session whose history is a copy of another's: the other's lines after its header,
byte for byte, under a new header that names its ``parent``. The original is only read (a process
may be appending to it: only its complete lines are copied).

An export is one JSONL file: a first line that says what it is (``hive-session-export``, the format,
the session's id, how many lines follow and their SHA-256), then the session file's lines as they
are. Importing checks all of that (a file that is cut short or changed is refused whole) and places
the session under its own id when that id is free, else under a new one: an import never
overwrites a session. An export whose id is free comes back byte for byte.

Session files hold no known secret value (their writer scrubbed every line); each copy passes the
current scrubber again, so what reaches the folder is scrubbed whatever wrote the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.errors import UserError
from engine.redaction.scrubber import Scrubber
from engine.safe_read import open_checked, read_bounded
from engine.session_store import Scrub, SessionInfo, SessionStore
from engine.sessions import index
from engine.sessions.placing import place_session

EXPORT_TYPE = "hive-session-export"
EXPORT_FORMAT = 1
MAX_SESSION = 1024 * 1024 * 1024
"""The largest session file (or export) copied."""


class Imported(Struct, frozen=True, kw_only=True):
    """A session imported: where it is now, and the id it was exported under (taken here when they differ)."""

    info: SessionInfo
    exported_id: str


class BadExport(UserError):
    """A file given to import is not a whole hive session export (exit 2)."""


def fork_session(store: SessionStore, session_id: str, scrub: Scrub) -> SessionInfo:
    """A new session holding a copy of ``session_id``'s history, its header naming that session as its parent."""
    original = store.load(session_id).info  # UserError when there is none, or it is no session
    lines = _complete_lines(_read(original.path))[1:]
    body = _scrubbed(b"".join(lines), scrub)

    def contents(new_id: str) -> bytes:
        header: dict[str, Any] = {"type": "session", "id": new_id, "cwd": original.cwd, "model": original.model}
        header |= {"created": time.time(), "title": original.title, "parent": original.id}
        return _scrubbed(_line(header), scrub) + body

    return _info(store, place_session(store.root, contents))


def discard_unopened(path: Path, size: int) -> None:
    """Remove the fork at ``path`` if nothing was written to it since it was made (it held ``size`` bytes)."""
    with contextlib.suppress(OSError):
        if path.stat().st_size == size:
            path.unlink()


def export_session(store: SessionStore, session_id: str) -> bytes:
    """The single-file export of ``session_id``: a line saying what it is, then the session's complete lines."""
    info = store.load(session_id).info
    body = b"".join(_complete_lines(_read(info.path)))
    envelope = {"type": EXPORT_TYPE, "format": EXPORT_FORMAT, "id": info.id}
    envelope |= {"lines": body.count(b"\n"), "sha256": hashlib.sha256(body).hexdigest()}
    return _line(envelope) + body


def import_session(store: SessionStore, path: Path, scrub: Scrub) -> Imported:
    """Place the session exported to ``path`` in ``store`` (under its id when free, else a new one); ``BadExport``."""
    try:
        data = read_bounded(path, limit=MAX_SESSION)
    except OSError as error:
        raise BadExport(f"cannot read {path}: {error}") from error
    envelope, body = _checked(path, data)
    header = _session_header(path, body)
    body = _scrubbed(body, scrub)
    first_end = body.index(b"\n") + 1

    def contents(new_id: str) -> bytes:
        if new_id == envelope["id"]:
            return body
        return _scrubbed(_line(header | {"id": new_id}), scrub) + body[first_end:]

    placed = place_session(store.root, contents, wanted=envelope["id"])
    return Imported(info=_info(store, placed), exported_id=envelope["id"])


def _checked(path: Path, data: bytes) -> tuple[dict[str, Any], bytes]:
    """The export's first line and the session lines after it, checked against what the first line says."""
    first, _, body = data.partition(b"\n")
    envelope = _json(first)
    if not isinstance(envelope, dict) or envelope.get("type") != EXPORT_TYPE:
        raise BadExport(f"{path} is not a hive session export (its first line does not say {EXPORT_TYPE})")
    if envelope.get("format") != EXPORT_FORMAT:
        raise BadExport(
            f"{path} is a hive session export of format {envelope.get('format')!r}: this hive reads {EXPORT_FORMAT}"
        )
    if (
        not isinstance(envelope.get("id"), str)
        or body.count(b"\n") != envelope.get("lines")
        or (body and not body.endswith(b"\n"))
    ):
        raise BadExport(f"{path} is cut short or changed: it does not hold the lines its first line counts")
    if hashlib.sha256(body).hexdigest() != envelope.get("sha256"):
        raise BadExport(f"{path} was changed or damaged after it was exported: its checksum does not match")
    return envelope, body


def _session_header(path: Path, body: bytes) -> dict[str, Any]:
    header = _json(body.partition(b"\n")[0])
    if not isinstance(header, dict) or header.get("type") != "session":
        raise BadExport(f"{path} holds no hive session: the line after its first is not a session header")
    return header


def _json(line: bytes) -> Any:
    try:
        return json.loads(line.decode("utf-8"))
    except ValueError:
        return None


def _read(path: Path) -> bytes:
    with open_checked(path) as file:
        data = file.read(MAX_SESSION + 1)
    if len(data) > MAX_SESSION:
        raise UserError(f"{path} is larger than {MAX_SESSION // (1024 * 1024)} MB: not copied")
    return data


def _complete_lines(data: bytes) -> list[bytes]:
    """The lines of ``data`` that end with a newline (a line still being written is left out), newlines kept."""
    return data[: data.rfind(b"\n") + 1].splitlines(keepends=True)


def _scrubbed(data: bytes, scrub: Scrub) -> bytes:
    """``data`` through ``scrub``; bytes that are not UTF-8 (a damaged line) come back as they were."""
    return scrub(data.decode("utf-8", errors="surrogateescape")).encode("utf-8", errors="surrogateescape")


def _line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8")


def _info(store: SessionStore, session_id: str) -> SessionInfo:
    """What the session just placed says of itself, once noted in the sessions index."""
    info = store.info(store.root / f"{session_id}.jsonl")
    assert info is not None  # written just now, with a session header
    index.record(store.root, session_id, info.cwd)
    return info


def default_scrub() -> Scrub:
    """The scrubber of hive's environment (its secret variables), for copies made outside a session."""
    return Scrubber.from_environment()
