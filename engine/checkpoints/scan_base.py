"""A session's whole pre-scan written once, so that each command's pending pre-scan holds only what changed since.

A command's pre-scan is saved before the command runs, so that a hive killed mid-command can still be
undone (:mod:`.open_turns`, :mod:`.settle`). Saving every path's key and state before every command
costs a write the size of the tree; instead the first command of a session writes the whole scan once
as ``<store>/open/<id>.base``, and each command's ``.scan`` names that base and holds only the paths
whose key or kept state changed since, and the paths gone since. A new base is written when that
difference grows past a quarter of the tree, or when the tree had to be walked again (then nothing
tells what changed).

A base is live while its process holds an exclusive ``flock`` on it (taken before it appears under its
name); settling removes the bases of ended processes that no pending pre-scan names any more.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from pathlib import Path

import msgspec

from engine.checkpoints.open_turns import PendingScan, open_folder, pending_scans
from engine.checkpoints.store import CheckpointStore, FileState
from engine.private_files import private_dir

BASE_SUFFIX = ".base"


class ScanBase:
    """The base this process wrote last, and the paths changed since (None: unknown, write a new base)."""

    def __init__(self, store: CheckpointStore) -> None:
        self.store = store
        self._id = ""
        self._descriptor: int | None = None
        self._roots: tuple[str, ...] = ()
        self.since: set[str] | None = None
        """The paths whose key or kept state changed since the base was written (None: not known)."""

    def wants_whole(self, roots: tuple[str, ...], paths: int) -> bool:
        """Whether the next pending pre-scan of ``roots`` (``paths`` paths) needs a new base written."""
        return not self._id or self.since is None or roots != self._roots or len(self.since) > paths // 4

    def pending(
        self,
        started: float,
        roots: tuple[str, ...],
        keys: dict[str, tuple[int, int, int, int, int]],
        states: dict[str, FileState],
        racy: frozenset[str],
    ) -> PendingScan:
        """The pending pre-scan to save for a command: the base's difference, or a new base's (empty) one.

        ``states``: the kept states of every path when :meth:`wants_whole`, else of those changed since.
        """
        since = self.since
        if since is None or self.wants_whole(roots, len(keys)):
            whole = PendingScan(started=started, roots=roots, keys=keys, states=states, racy=racy)
            self._write(whole)
            self._roots, self.since, since = roots, set(), set()
        return PendingScan(
            started=started,
            roots=roots,
            keys={path: keys[path] for path in since if path in keys},
            states={path: states[path] for path in since if path in states},
            racy=racy,
            base=self._id,
            gone=tuple(sorted(path for path in since if path not in keys)),
        )

    def close(self) -> None:
        """The session ended: its base goes (no command of it is pending any more)."""
        if self._descriptor is not None:
            (open_folder(self.store) / f"{self._id}{BASE_SUFFIX}").unlink(missing_ok=True)
            os.close(self._descriptor)
        self._descriptor, self._id, self.since = None, "", None

    def _write(self, whole: PendingScan) -> None:
        folder = private_dir(open_folder(self.store))
        name = f"{os.getpid()}-{secrets.token_hex(6)}"
        partial = folder / f".{name}{BASE_SUFFIX}.{secrets.token_hex(4)}.tmp"
        descriptor = os.open(partial, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            os.write(descriptor, msgspec.msgpack.encode(whole))
            os.replace(partial, folder / f"{name}{BASE_SUFFIX}")
        except BaseException:
            os.close(descriptor)
            partial.unlink(missing_ok=True)
            raise
        old, old_id = self._descriptor, self._id
        self._descriptor, self._id = descriptor, name
        if old is not None:
            (folder / f"{old_id}{BASE_SUFFIX}").unlink(missing_ok=True)
            os.close(old)


def whole_scan(store: CheckpointStore, scan: PendingScan) -> PendingScan | None:
    """``scan`` with its base applied (None: the base is gone or unreadable)."""
    if not scan.base:
        return scan
    try:
        data = (open_folder(store) / f"{scan.base}{BASE_SUFFIX}").read_bytes()
        base = msgspec.msgpack.decode(data, type=PendingScan)
    except (OSError, msgspec.ValidationError, msgspec.DecodeError):
        return None
    gone = set(scan.gone)
    keys = {path: key for path, key in base.keys.items() if path not in gone} | scan.keys
    states = {path: state for path, state in base.states.items() if path not in gone and path not in scan.keys}
    racy = frozenset(path for path in base.racy | scan.racy if path not in gone)
    return PendingScan(started=scan.started, roots=scan.roots, keys=keys, states=states | scan.states, racy=racy)


def remove_dead_bases(store: CheckpointStore) -> None:
    """Remove the bases whose process ended and that no pending pre-scan names."""
    folder = open_folder(store)
    try:
        names = [name for name in os.listdir(folder) if name.endswith(BASE_SUFFIX) and not name.startswith(".")]
    except OSError:
        return
    if not names:
        return
    named = {scan.base for scan in pending_scans(store)}
    for name in names:
        if name.removesuffix(BASE_SUFFIX) not in named:
            _remove_if_dead(folder / name)


def _remove_if_dead(path: Path) -> None:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    try:
        with contextlib.suppress(BlockingIOError):
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            path.unlink(missing_ok=True)
    finally:
        os.close(descriptor)
