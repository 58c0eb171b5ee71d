"""Sessions: one append-only JSONL file per conversation, flushed after every record.

A killed process loses at most the record being written. Known secrets (the API key in use and
the values of ``*_API_KEY``-style environment variables) are replaced before anything is written.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from engine.conversation import Compaction
from engine.errors import UserError
from engine.model.types import Message

_SECRET_ENV = re.compile(r"(API_KEY|_TOKEN|_SECRET|PASSWORD)$", re.IGNORECASE)
REDACTED = "[REDACTED]"


class Redactor:
    """Replaces known secret values in text."""

    def __init__(self, extra_secrets: tuple[str | None, ...] = ()) -> None:
        values = {v for v in extra_secrets if v and len(v) >= 8}
        values |= {v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8}
        self._secrets = sorted(values, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text


@dataclass(frozen=True, kw_only=True)
class SessionInfo:
    """What a session file says about itself."""

    id: str
    path: Path
    cwd: str
    model: str
    created: float
    title: str = ""


@dataclass(frozen=True, kw_only=True)
class LoadedSession:
    """A session read back: its info, its messages, and how many damaged lines were dropped."""

    info: SessionInfo
    messages: tuple[Message, ...]
    compactions: tuple[Compaction, ...] = ()
    """The conversation's compactions: what the model saw instead of the oldest messages."""
    dropped_lines: int = 0


class SessionWriter:
    """Appends records to one session file."""

    def __init__(self, path: Path, redact: Redactor) -> None:
        self.path = path
        self.id = path.stem
        self._redact = redact
        self._file: IO[str] = path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        """Append one record and flush it to the operating system."""
        line = self._redact(json.dumps(record, ensure_ascii=False, default=str))
        self._file.write(line + "\n")
        self._file.flush()

    def append_message(self, message: Message) -> None:
        """Append a conversation message."""
        self.write({"type": "message", "ts": time.time(), "message": message})

    def append_compaction(self, compaction: Compaction) -> None:
        """Append a compaction: from here on a summary stands for the first ``through`` messages."""
        record = {"through": compaction.through, "summary": compaction.summary, "reason": compaction.reason}
        self.write({"type": "compaction", "ts": time.time(), **record})

    def close(self) -> None:
        """Close the file (records already written stay)."""
        self._file.close()


class SessionStore:
    """The folder of session files."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def create(self, *, cwd: Path, model: str, redact: Redactor, title: str = "") -> SessionWriter:
        """Start a new session file and write its header."""
        self.root.mkdir(parents=True, exist_ok=True)
        session_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
        writer = SessionWriter(self.root / f"{session_id}.jsonl", redact)
        header = {"type": "session", "id": session_id, "cwd": str(cwd), "model": model, "created": time.time()}
        writer.write(header | {"title": title[:200]})
        return writer

    def reopen(self, session_id: str, *, redact: Redactor) -> SessionWriter:
        """Append to an existing session (``--continue``, ``--resume``)."""
        path = self.root / f"{session_id}.jsonl"
        if _read_info(path) is None:
            raise UserError(f"no session {session_id!r} in {self.root}")
        _end_with_newline(path)  # a record cut short by a crash must not swallow the next one
        writer = SessionWriter(path, redact)
        writer.write({"type": "resumed", "ts": time.time()})
        return writer

    def list(self, cwd: Path | None = None) -> list[SessionInfo]:
        """Sessions, newest first; only those started in ``cwd`` when given."""
        if not self.root.is_dir():
            return []
        infos = [info for path in self.root.glob("*.jsonl") if (info := _read_info(path)) is not None]
        if cwd is not None:
            infos = [i for i in infos if i.cwd == str(cwd)]
        return sorted(infos, key=lambda i: (i.created, i.id), reverse=True)

    def load(self, session_id: str) -> LoadedSession:
        """Read a session back; a damaged line (a write cut short) is dropped and counted."""
        path = self.root / f"{session_id}.jsonl"
        if not path.is_file():
            raise UserError(f"no session {session_id!r} in {self.root}")
        info = _read_info(path)
        if info is None:
            raise UserError(f"{path} is not a hive session file")
        messages, compactions, dropped = _read_records(path)
        return LoadedSession(info=info, messages=tuple(messages), compactions=tuple(compactions), dropped_lines=dropped)


def _end_with_newline(path: Path) -> None:
    with path.open("rb+") as handle:
        handle.seek(0, 2)
        if handle.tell() == 0:
            return
        handle.seek(-1, 2)
        if handle.read(1) != b"\n":
            handle.write(b"\n")


def _read_info(path: Path) -> SessionInfo | None:
    try:
        with path.open(encoding="utf-8") as handle:
            header = json.loads(handle.readline())
    except (OSError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("type") != "session":
        return None
    return SessionInfo(
        id=str(header.get("id", path.stem)),
        path=path,
        cwd=str(header.get("cwd", "")),
        model=str(header.get("model", "")),
        created=float(header.get("created", 0)),
        title=str(header.get("title", "")),
    )


def _read_records(path: Path) -> tuple[list[Message], list[Compaction], int]:
    messages: list[Message] = []
    compactions: list[Compaction] = []
    dropped = 0
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                dropped += 1
                continue
            if not isinstance(record, dict):
                continue
            if record.get("type") == "message" and isinstance(record.get("message"), dict):
                messages.append(record["message"])
            elif record.get("type") == "compaction":
                compaction = _compaction_of(record, len(messages), compactions)
                if compaction is None:
                    dropped += 1
                else:
                    compactions.append(compaction)
    return messages, compactions, dropped


def _compaction_of(record: dict[str, Any], known: int, earlier: list[Compaction]) -> Compaction | None:
    """A compaction record read back, or None when it cannot be one (it must cover known messages, in order)."""
    through, summary, reason = record.get("through"), record.get("summary"), record.get("reason", "manual")
    floor = earlier[-1].through if earlier else 0
    if not isinstance(through, int) or not isinstance(summary, str) or not floor < through <= known:
        return None
    if reason not in ("threshold", "overflow", "manual"):
        reason = "manual"
    return Compaction(through=through, summary=summary, reason=reason)
