"""The results file: one JSON line per finished task, appended and flushed as each finishes.

A batch started again reads it and skips every task that has a line. A last line cut short by a crash is
not a result: it is cut off the file before anything is appended, and its task runs again.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any, Literal

import msgspec
from msgspec import Struct

from engine.errors import ConfigError

Status = Literal["succeeded", "failed"]


class BatchResult(Struct, frozen=True, kw_only=True):
    """One task's outcome: a line of the results file."""

    id: str
    status: Status
    exit_code: int | None = None
    """``hive run``'s exit status (None when it did not get to run)."""
    exit_reason: str | None = None
    """``hive run``'s exit reason (``completed``, ``max_turns``, ``usage_limit``, ``error``...)."""
    usage: dict[str, Any] | None = None
    """The run's usage total (tokens, calls, ``cost_usd``), as ``hive run -o json`` reports it."""
    cost_usd: float | None = None
    session_id: str | None = None
    branch: str | None = None
    """The branch in the working copy (for a local repository, a branch of that repository too)."""
    patch: str | None = None
    """The patch file of the task's changes (``git apply``-able); None when it changed nothing."""
    changed_files: tuple[str, ...] = ()
    answer: str | None = None
    structured: Any = None
    """With an output schema: the parsed final answer."""
    error: str | None = None
    """Why the task failed, in one line."""
    workspace: str | None = None
    """The task's folder: the working copy, the patch, hive's output."""
    duration_s: float | None = None


def encode_result(result: BatchResult) -> str:
    """The result as one JSON line (no newline)."""
    return msgspec.json.encode(result).decode()


def decode_result(text: str) -> BatchResult:
    """A result line back (``msgspec.DecodeError`` or ``ValidationError`` if it is not one)."""
    return msgspec.json.decode(text, type=BatchResult)


def finished_results(path: Path) -> dict[str, BatchResult]:
    """The results already in ``path`` by task id (the file's cut-short last line left out); {} when there is none."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the results ({error.strerror or error})") from None
    finished: dict[str, BatchResult] = {}
    for line in data.split(b"\n"):
        result = _result_or_none(line)
        if result is not None:
            finished[result.id] = result
    return finished


def _result_or_none(line: bytes) -> BatchResult | None:
    if not line.strip():
        return None
    try:
        return msgspec.json.decode(line, type=BatchResult)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


class ResultsFile:
    """The results file, open for appending; each line is written whole and flushed to disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as error:
            raise ConfigError(f"{path}: cannot write the results ({error.strerror or error})") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # let go when this process ends, however it ends
        except BlockingIOError:
            os.close(self._fd)
            raise ConfigError(f"{path}: another hive batch is writing these results; wait for it to end") from None
        _cut_partial_line(path, self._fd)

    def append(self, line: str) -> None:
        """Append one result line (JSON text) and flush it to disk."""
        json.loads(line)  # a line that is not JSON would be lost on the next start: never write one
        os.write(self._fd, line.encode("utf-8") + b"\n")
        os.fsync(self._fd)

    def close(self) -> None:
        """Close the file."""
        os.close(self._fd)


def _cut_partial_line(path: Path, fd: int) -> None:
    """Cut a last line that has no newline (a write cut short): appending after it would spoil the next line."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        os.ftruncate(fd, data.rfind(b"\n") + 1)
