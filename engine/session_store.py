"""Sessions: one append-only JSONL file per conversation, flushed after every record.

A killed process loses at most the record being written. One process at a time writes a session: a
writer holds the session's lock (:mod:`engine.session_lock`) from its opening to its closing, and
``claim`` holds it before the records are read, so a second process is refused before it sends anything. Known secret values (the API key in use
and the values of the secret variables of hive's environment) are replaced by their markers before
anything is written: the writer passes every line through its ``scrub`` (a
:class:`engine.redaction.scrubber.Scrubber`), whatever the record holds (the person's prompt, the
model's text, tool arguments and results).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from msgspec import Struct

from engine.conversation import Compaction
from engine.disk_full import writing
from engine.errors import UserError
from engine.model.types import Message
from engine.paths import unusable_user_dir
from engine.private_files import open_private, private_dir
from engine.session_lock import hold, release
from engine.session_reading import read_records
from engine.session_repair import Damage
from engine.sessions import index
from engine.sessions.info import SESSION_ID as SESSION_ID
from engine.sessions.info import SessionInfo as SessionInfo
from engine.sessions.info import SessionListing as SessionListing
from engine.sessions.info import read_info
from engine.sessions.listing import scan

MAX_TITLE = 200
_KEPT = "the session up to the last turn is kept"
Scrub = Callable[[str], str]
"""What every line passes before it is written (a ``Scrubber``: known secret values replaced)."""


class LoadedSession(Struct, frozen=True, kw_only=True):
    """A session read back: its info, its messages, and how many damaged lines were dropped."""

    info: SessionInfo
    messages: tuple[Message, ...]
    compactions: tuple[Compaction, ...] = ()
    """The conversation's compactions: what the model saw instead of the oldest messages."""
    outcomes: tuple[tuple[str, bool | None], ...] = ()
    """(tool call id, whether it worked) for every tool result whose outcome was recorded."""
    damage: Damage = Damage()
    """What was skipped to read it back (damaged lines, tool rounds that lost a part)."""

    @property
    def dropped_lines(self) -> int:
        """How many damaged lines were skipped."""
        return len(self.damage.lines)

    @property
    def notice(self) -> str:
        """What the person is told of the damage when the session resumes ("" when none)."""
        return self.damage.describe(self.info.id)

    def succeeded(self, call_id: str) -> bool | None:
        """Whether the call ``call_id`` worked (None when unknown)."""
        return dict(self.outcomes).get(call_id)


class SessionWriter:
    """Appends records to one session file.

    Given a ``header``, the file is made only with the first record (the header first, titled by the
    first message when it has no title), so a session nothing was said in leaves no file behind.
    The session's lock is held from here to :meth:`close` (:class:`engine.session_lock.SessionBusy`
    when another process holds it). Its making and its closing are noted in the sessions index
    (:mod:`engine.sessions.index`) with ``cwd``, the folder it was started in (the header's when given).
    """

    def __init__(self, path: Path, scrub: Scrub, header: dict[str, Any] | None = None, *, cwd: str = "") -> None:
        self.path = path
        self.id = path.stem
        self._scrub = scrub
        self._header = header
        self._cwd = str(header.get("cwd", "")) if header is not None else cwd
        _hold(path, "nothing of this session was saved" if header is not None else _KEPT)
        try:
            self._file: IO[str] | None = None if header is not None else _append(path)
        except BaseException:
            release(path)
            raise

    def write(self, record: dict[str, Any]) -> None:
        """Append one record and flush it to the operating system.

        A full disk raises :class:`engine.disk_full.DiskFull`; the file is cut back to its last full record.
        """
        if self._file is None:
            self._file = self._start(record)
        line = self._scrub(json.dumps(record, ensure_ascii=False, default=str))
        with writing("the session file", self.path.parent, _KEPT):
            _append_line(self._file, line)

    def _start(self, first: dict[str, Any]) -> IO[str]:
        header = dict(self._header or {})
        message = first.get("message")
        if not header.get("title") and isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            header["title"] = content if isinstance(content, str) else ""
        header["title"] = self._scrub(header.get("title") or "")[:MAX_TITLE]  # cut after: no part of a value is kept
        handle = _append(self.path)
        try:
            with writing("the session file", self.path.parent, "nothing of this session was saved"):
                _append_line(handle, self._scrub(json.dumps(header, ensure_ascii=False, default=str)))
        except BaseException:
            handle.close()
            self.path.unlink(missing_ok=True)
            raise
        index.record(self.path.parent, self.id, self._cwd)
        return handle

    def append_message(self, message: Message, success: bool | None = None) -> None:
        """Append a conversation message (for a tool result, whether the call worked, when known)."""
        record: dict[str, Any] = {"type": "message", "ts": time.time(), "message": message}
        if success is not None:
            record["success"] = success
        self.write(record)

    def append_compaction(self, compaction: Compaction) -> None:
        """Append a compaction: from here on a summary stands for the first ``through`` messages."""
        record = {"through": compaction.through, "summary": compaction.summary, "reason": compaction.reason}
        self.write({"type": "compaction", "ts": time.time(), **record})

    def close(self) -> None:
        """Close the file (records already written stay) and let go of the session's lock."""
        if self._file is not None:
            self._file.close()
            self._file = None
            index.record(self.path.parent, self.id, self._cwd)  # used last now, whenever it was opened
        release(self.path)


class SessionStore:
    """The folder of session files."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def create(self, *, cwd: Path, model: str, scrub: Scrub, title: str = "") -> SessionWriter:
        """Start a new session file and write its header; ``UserError`` when the folder cannot be created or written."""
        session_id = new_session_id()
        try:
            private_dir(self.root)
            probe = tempfile.NamedTemporaryFile(dir=self.root, prefix=".probe-")  # the file itself comes later
            probe.close()
        except OSError as error:
            raise unusable_user_dir(self.root, error) from error
        header = {"type": "session", "id": session_id, "cwd": str(cwd), "model": model, "created": time.time()}
        return SessionWriter(self.root / f"{session_id}.jsonl", scrub, header | {"title": title})

    def reopen(self, session_id: str, *, scrub: Scrub) -> SessionWriter:
        """Append to an existing session (``--continue``, ``--resume``); ``SessionBusy`` when another process writes it."""
        path = self._path(session_id)
        info = read_info(path)
        if info is None:
            raise UserError(f"{path} is not a readable hive session file")
        writer = SessionWriter(
            path, scrub, cwd=info.cwd
        )  # locks first: nothing is written while another process writes
        _end_with_newline(path)  # a record cut short by a crash must not swallow the next one
        writer.write({"type": "resumed", "ts": time.time()})
        index.record(self.root, session_id, info.cwd)
        return writer

    def claim(self, session_id: str) -> LoadedSession:
        """Hold the session's lock for this process, then read it back (``SessionBusy``: another process writes it).

        Held before reading, so what is read is not outgrown by another process before this one appends;
        :meth:`unclaim` lets go (the end of the process does too).
        """
        path = self._path(session_id)
        _hold(path, _KEPT)
        try:
            return self.load(session_id)
        except BaseException:
            release(path)
            raise

    def unclaim(self, session_id: str) -> None:
        """Let go of a :meth:`claim` (nothing when the id names no session)."""
        release(self.root / f"{session_id}.jsonl")

    def scan(self, cwd: Path | None = None, limit: int | None = None) -> SessionListing:
        """Sessions, the one used last first (only those started in ``cwd`` when given), and the unreadable files.

        With a ``limit`` the latest are found through the sessions index, so they cost the same however
        many are kept; without one the folder is read whole (:mod:`engine.sessions.listing`).
        """
        return scan(self.root, cwd, limit)

    def info(self, path: Path) -> SessionInfo | None:
        """What the session file ``path`` says about itself; None when it is not one."""
        return read_info(path)

    def list(self, cwd: Path | None = None, limit: int | None = None) -> list[SessionInfo]:
        """Sessions, the one used last first; only those started in ``cwd`` when given (unreadable files skipped)."""
        return list(self.scan(cwd, limit).sessions)

    def latest(self, cwd: Path) -> SessionInfo | None:
        """The session last used in ``cwd`` (what ``--continue`` continues); None when there is none."""
        found = self.scan(cwd, limit=1).sessions
        return found[0] if found else None

    def load(self, session_id: str) -> LoadedSession:
        """Read a session back from its intact records: damaged lines are skipped and named, tool rounds
        that lost a part dropped (:mod:`engine.session_repair`); ``LoadedSession.notice`` says what."""
        path = self._path(session_id)
        info = read_info(path)
        if info is None:
            raise UserError(f"{path} is not a readable hive session file")
        try:
            records = read_records(path)
        except OSError as error:
            raise UserError(f"cannot read session {session_id}: {path}: {error}") from error
        return LoadedSession(
            info=info,
            messages=records.messages,
            compactions=records.compactions,
            outcomes=records.outcomes,
            damage=records.damage.merged(Damage(header=info.damaged_header)),
        )

    def _path(self, session_id: str) -> Path:
        """The file of ``session_id``; ``UserError`` when there is none (or the id is not one hive makes)."""
        path = self.root / f"{session_id}.jsonl"
        if not SESSION_ID.fullmatch(session_id) or not path.is_file():
            raise UserError(f"no session {session_id!r} in {self.root} (hive sessions list shows them)")
        return path


def new_session_id() -> str:
    """A fresh session id: when it was made, and six random hex digits."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def _end_with_newline(path: Path) -> None:
    with path.open("rb+") as handle:
        handle.seek(0, 2)
        if handle.tell() == 0:
            return
        handle.seek(-1, 2)
        if handle.read(1) != b"\n":
            handle.write(b"\n")


def _hold(path: Path, kept: str) -> None:
    """Hold the session's lock (its lock file names this process); a full disk is :class:`DiskFull`."""
    with writing("the session file", path.parent, kept):
        hold(path)


def _append_line(handle: IO[str], line: str) -> None:
    """Append ``line`` and its newline straight to the file; if that fails, cut the file back to where it ended."""
    descriptor = handle.fileno()
    end = os.fstat(descriptor).st_size
    data = (line + "\n").encode("utf-8")
    try:
        written = 0
        while written < len(data):
            written += os.write(descriptor, data[written:])
    except BaseException:
        with contextlib.suppress(OSError):
            os.ftruncate(descriptor, end)  # no partial line is left to swallow the next record
        raise


def _append(path: Path) -> IO[str]:
    """A session file opened for appending, readable by the person only (it may hold what they typed)."""
    return open_private(path, "a")
