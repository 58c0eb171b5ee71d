"""One process at a time writes a session: an exclusive lock on a file beside it, naming the holder.

Two processes appending to one session file would interleave their records (two user messages, then
two assistants' tool calls...), and the next resume would send the model an invalid history. So the
process that writes a session holds ``ID.lock`` beside ``ID.jsonl`` (``flock``, released by the
operating system when the process ends, however it ends) with its pid written in it; another process
is refused with that pid. Within one process holding is counted, so the REPL can hold the session it
shows while its writer holds it too.

The lock file is removed on the last release. A process that opened it just before could then lock
a file no longer in the folder; so after locking, the file's identity is checked against the
folder's, and on a mismatch the lock is taken again.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from engine.errors import UserError


class SessionBusy(UserError):
    """Another process is writing this session (exit 2); the message names its pid."""

    def __init__(self, session_file: Path, holder: int | None) -> None:
        who = f"hive process {holder}" if holder is not None else "another hive process"
        super().__init__(
            f"session {session_file.stem} is in use by {who}, which is writing to it; "
            "wait for that process to end (or end it), or start a new session"
        )
        self.holder = holder


_held: dict[Path, tuple[int, int]] = {}
"""The locks this process holds: lock file -> (descriptor, how many holders in this process)."""


def hold(session_file: Path) -> None:
    """Hold the lock of ``session_file`` for this process; :class:`SessionBusy` when another process holds it."""
    lock = lock_file(session_file)
    if lock in _held:
        descriptor, count = _held[lock]
        _held[lock] = (descriptor, count + 1)
        return
    _held[lock] = (_acquire(lock, session_file), 1)


def release(session_file: Path) -> None:
    """Let go of one hold; the last one removes the lock file and unlocks it."""
    lock = lock_file(session_file)
    if lock not in _held:
        return
    descriptor, count = _held.pop(lock)
    if count > 1:
        _held[lock] = (descriptor, count - 1)
        return
    with contextlib.suppress(OSError):
        os.unlink(lock)  # while still locked: a waiting opener then sees the file is gone
    os.close(descriptor)


def in_use(session_file: Path) -> bool:
    """Whether a process (this one too) holds the lock of ``session_file``: it is being written or resumed."""
    lock = lock_file(session_file)
    if lock in _held:
        return True
    try:
        descriptor = os.open(lock, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # a lock file that cannot be opened: judged in use, so nothing of it is removed
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)  # closing lets go of a lock taken here
    return False


def lock_file(session_file: Path) -> Path:
    """The lock file beside ``session_file``."""
    return session_file.with_suffix(".lock")


def _acquire(lock: Path, session_file: Path) -> int:
    while True:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(descriptor)
            os.close(descriptor)
            raise SessionBusy(session_file, holder) from None
        if _still_in_folder(descriptor, lock):
            try:
                os.ftruncate(descriptor, 0)
                os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
            except OSError:  # a full disk: no lock file is left behind
                with contextlib.suppress(OSError):
                    os.unlink(lock)
                os.close(descriptor)
                raise
            return descriptor
        os.close(descriptor)  # the holder removed it as this process locked it: take the new one


def _still_in_folder(descriptor: int, lock: Path) -> bool:
    try:
        there = os.stat(lock, follow_symlinks=False)
    except FileNotFoundError:
        return False
    mine = os.fstat(descriptor)
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


def _holder(descriptor: int) -> int | None:
    """The pid the holder wrote (None while it has not written it yet)."""
    text = os.pread(descriptor, 32, 0).decode("ascii", errors="replace").strip()
    return int(text) if text.isdigit() else None
