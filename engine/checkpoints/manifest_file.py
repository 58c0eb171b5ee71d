"""Reading one manifest file back, checked: a damaged one becomes a :class:`DamagedRecord` saying what is wrong.

A manifest that cannot be read (bytes that are not UTF-8, text that is not JSON, JSON of the wrong
shape) is never skipped: undo goes back turn by turn, and silently passing a turn would leave its
changes in place while older turns are undone around them.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import Struct

from engine.checkpoints.store import Change, FileState, Manifest


class DamagedRecord(Struct, frozen=True):
    """A checkpoint record that could not be read: its file and what is wrong with it."""

    path: str
    problem: str

    @property
    def name(self) -> str:
        """The record's file name (``<turn id>.json``)."""
        return self.path.rsplit("/", 1)[-1]


class _StateOnDisk(Struct, frozen=True):
    kind: Literal["file", "dir", "link", "unrecorded"]
    blob: str = ""
    mode: int = 0
    target: str = ""
    reason: str = ""


class _ChangeOnDisk(Struct, frozen=True):
    before: _StateOnDisk | None
    after: _StateOnDisk | None


class _ManifestOnDisk(Struct, frozen=True):
    id: str
    created: float
    cwd: str
    files: dict[str, _ChangeOnDisk]
    label: str = ""
    undone: bool = False
    version: int = 1


def decode_manifest(data: bytes, path: str) -> Manifest | DamagedRecord:
    """The manifest in ``data`` (read from ``path``), or what is wrong with it."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as bad:
        return DamagedRecord(path, f"not UTF-8 text (a bad byte at offset {bad.start})")
    try:
        record = msgspec.json.decode(data, type=_ManifestOnDisk)
    except msgspec.ValidationError as wrong:
        return DamagedRecord(path, f"not a checkpoint record ({wrong})")
    except msgspec.DecodeError as bad:
        return DamagedRecord(path, f"not valid JSON ({bad})")
    return Manifest(
        id=record.id,
        created=record.created,
        cwd=record.cwd,
        label=record.label,
        undone=record.undone,
        changes={path: Change(_state(c.before), _state(c.after)) for path, c in record.files.items()},
    )


def _state(state: _StateOnDisk | None) -> FileState | None:
    if state is None:
        return None
    return FileState(kind=state.kind, blob=state.blob, mode=state.mode, target=state.target, reason=state.reason)
