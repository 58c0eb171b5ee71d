"""Reading a session file back, line by line in binary: damage stays in the line it is in.

Each line is decoded on its own (hive writes UTF-8 JSON, one record a line), so a few bytes of
garbage cost the record they hit and nothing else: that line is skipped and named, the records
around it are read. The file is opened through :mod:`engine.safe_read` (a FIFO or a device where a
session file is expected is refused, not waited on).

The messages of a session are numbered as the process that wrote them had them in its conversation,
which is what its compaction records count. A process that resumes a session writes a ``resumed``
record, then continues from what it read back (damaged lines skipped, broken rounds dropped: see
:mod:`engine.session_repair`); so at each ``resumed`` record the reading settles what it has read the
same way, and counts on from there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.conversation import Compaction
from engine.model.types import Message
from engine.safe_read import open_checked
from engine.session_repair import Damage, Numbered, fitting_compactions, whole_rounds

HEADER_LIMIT = 64 * 1024
"""The most the first line may hold (a header is a few hundred bytes)."""
_MESSAGE_START = b'{"type": "message"'
"""How every message record hive writes begins: a damaged line that begins so was a message."""
_ROLES = frozenset({"system", "user", "assistant", "tool"})


class SessionRecords(Struct, frozen=True, kw_only=True):
    """The conversation a session file holds, and what was skipped to read it."""

    messages: tuple[Message, ...]
    compactions: tuple[Compaction, ...]
    outcomes: tuple[tuple[str, bool | None], ...]
    damage: Damage


def read_header(path: Path, *, resolved: bool = False) -> Any:
    """The first line of ``path`` decoded (bytes that are not UTF-8 replaced), or None when it is not JSON.

    ``resolved``: ``path`` is in a folder already resolved (:func:`engine.safe_read.open_checked`).
    """
    with open_checked(path, resolved=resolved) as file:
        line = file.readline(HEADER_LIMIT + 1)
    if len(line) > HEADER_LIMIT:
        return None
    try:
        return json.loads(line.decode("utf-8", errors="replace"))
    except ValueError:
        return None


def has_messages(path: Path) -> bool:
    """Whether any line of ``path`` after the first is an intact message record."""
    return any(kind == "message" for _, kind, _ in _records(path))


def read_records(path: Path) -> SessionRecords:
    """The messages and compactions of the session file ``path``, damaged lines skipped and named."""
    reading = _Reading()
    for number, kind, record in _records(path):
        reading.take(number, kind, record)
    messages, compactions = reading.settle()
    return SessionRecords(
        messages=tuple(messages),
        compactions=tuple(compactions),
        outcomes=tuple(reading.outcomes),
        damage=reading.damage,
    )


class _Reading:
    """The records read so far: numbered messages and compactions since the last settling."""

    def __init__(self) -> None:
        self.numbered: list[Numbered] = []
        self.compactions: list[Compaction] = []
        self.outcomes: list[tuple[str, bool | None]] = []
        self.damage = Damage()
        self.next_place = 0

    def take(self, number: int, kind: str, record: Any) -> None:
        if kind == "message":
            self._message(record)
        elif kind == "compaction" and record["through"] <= self.next_place:
            self.compactions.append(Compaction(**record))
        elif kind == "resumed":
            messages, compactions = self.settle()
            self.numbered = list(enumerate(messages))
            self.compactions = compactions
        elif kind != "other":  # damaged, or a compaction of messages not written yet
            self.damage = self.damage.merged(Damage(lines=(number,)))
            self.next_place += kind == "damaged message"  # its writer had it: later compactions count it

    def _message(self, record: dict[str, Any]) -> None:
        message = record["message"]
        self.numbered.append((self.next_place, message))
        self.next_place += 1
        success = record.get("success")
        if isinstance(success, bool) and message.get("role") == "tool":
            self.outcomes.append((message["tool_call_id"], success))

    def settle(self) -> tuple[list[Message], list[Compaction]]:
        """What a process resuming here would continue from: whole rounds and the compactions that fit."""
        kept, dropped = whole_rounds(self.numbered)
        compactions, unfit = fitting_compactions(self.compactions, kept)
        self.damage = self.damage.merged(dropped).merged(Damage(compactions=unfit))
        self.next_place = len(kept)
        return [message for _, message in kept], compactions


def _records(path: Path) -> Iterator[tuple[int, str, Any]]:
    """(line number, kind, record) for every line after the first; kinds: message, compaction, resumed,
    other, damaged, damaged message."""
    with open_checked(path) as file:
        file.readline()  # the header: read by read_header
        for number, line in enumerate(file, start=2):
            if line.strip():
                yield number, *_classified(line)


def _classified(line: bytes) -> tuple[str, Any]:
    try:
        record = json.loads(line.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is one
        return ("damaged message" if line.startswith(_MESSAGE_START) else "damaged"), None
    kind = record.get("type") if isinstance(record, dict) else None
    if kind == "message":
        return ("message", record) if _is_message(record.get("message")) else ("damaged message", None)
    if kind == "compaction":
        return ("compaction", _compaction_fields(record)) if _is_compaction(record) else ("damaged", None)
    return ("resumed" if kind == "resumed" else "other"), record


def _is_message(message: Any) -> bool:
    """Whether ``message`` has what the history needs of it (a role; a result's call id; calls with ids)."""
    if not isinstance(message, dict) or message.get("role") not in _ROLES:
        return False
    if message["role"] == "tool":
        return isinstance(message.get("tool_call_id"), str)
    calls = message.get("tool_calls")
    return calls is None or (isinstance(calls, list) and all(_is_call(call) for call in calls))


def _is_call(call: Any) -> bool:
    return isinstance(call, dict) and isinstance(call.get("id"), str)


def _is_compaction(record: dict[str, Any]) -> bool:
    through = record.get("through")
    return isinstance(through, int) and not isinstance(through, bool) and isinstance(record.get("summary"), str)


def _compaction_fields(record: dict[str, Any]) -> dict[str, Any]:
    reason = record.get("reason", "manual")
    reason = reason if reason in ("threshold", "overflow", "manual") else "manual"
    return {"through": record["through"], "summary": record["summary"], "reason": reason}
