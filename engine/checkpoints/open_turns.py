"""The turns open now in a project, one record each beside its checkpoint store, so hives working at once keep apart.

Several hives can work in one project at once (two terminals, a script starting runs). A shell
command's before/after scan sees every change made in the project meanwhile, so each turn declares
the paths it touches, in a record of its own, ``<store>/open/<turn id>.json``: its process id, its
folder, when it began and the paths touched so far (a file tool's target before it is written, a
command's recorded changes after it ran). A command's scan keeps for its turn only the changed paths
no other live turn declared (:meth:`TurnRecorder.command_ended`).

A record is live while its process holds an exclusive ``flock`` on ``<turn id>.lock``: the operating
system drops the lock when the process ends, however it ends, so a process id used again by another
program is never taken for the turn's. Dead records are ignored, and cleaned by whoever settles the
store (:mod:`.settle`). A command's pre-scan is saved as ``<turn id>.scan`` before the command runs:
when the process is killed mid-command, settling turns it into that turn's changes.

Every file here is hive's own (0600 in 0700 folders), written under a temporary name and renamed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec
from msgspec import Struct

from engine.checkpoints.store import CheckpointStore, FileState, Manifest
from engine.errors import HiveError
from engine.private_files import private_dir

OPEN_DIR = "open"
_KINDS = (".json", ".scan", ".lock")


class OpenTurn(Struct, frozen=True, kw_only=True):
    """What a turn in progress says about itself."""

    pid: int
    turn: str
    """The turn's id, the id of its checkpoint's manifest."""
    cwd: str
    started: float
    touched: tuple[str, ...] = ()
    """The paths the turn has touched so far (or is about to write)."""
    command_since: float = 0.0
    """When the shell command running now began (0: none); its pre-scan is saved beside the record."""


class PendingScan(Struct, frozen=True, kw_only=True):
    """The pre-scan of a command in flight: the stat keys of the roots and the kept before-state of each path."""

    started: float
    roots: tuple[str, ...]
    keys: dict[str, tuple[int, int, int, int, int]]
    states: dict[str, FileState]
    racy: frozenset[str] = frozenset()
    base: str = ""
    """The session's whole pre-scan this one adds to (:mod:`.scan_base`); empty: this one is whole."""
    gone: tuple[str, ...] = ()
    """The paths of the base that are gone since."""


class TurnStillOpen(HiveError):
    """An undo of a turn that is still running; nothing was changed."""

    def __init__(self, turn: OpenTurn) -> None:
        super().__init__(
            f"Undo refused: the turn of {turn.turn} is still running in hive process {turn.pid}; nothing was "
            "changed.\nWait for that run to end (or end it), then undo."
        )
        self.turn = turn


def open_folder(store: CheckpointStore) -> Path:
    """Where the records of the project's open turns are kept."""
    return store.root / OPEN_DIR


class TurnHandle:
    """The record of this process's open turn; it stays live as long as the handle holds its lock."""

    def __init__(self, store: CheckpointStore, turn_id: str, cwd: Path, touched: Iterable[str] = ()) -> None:
        self.folder = private_dir(open_folder(store))
        self.record = OpenTurn(
            pid=os.getpid(), turn=turn_id, cwd=str(cwd), started=time.time(), touched=tuple(sorted(set(touched)))
        )
        self._lock = _locked_file(self._path(".lock"))
        self._save()

    @property
    def turn_id(self) -> str:
        """The id of the turn (and of its manifest)."""
        return self.record.turn

    def touch(self, paths: Iterable[str]) -> None:
        """Declare ``paths`` as the turn's, before they are written (or once a command changed them)."""
        known = set(self.record.touched)
        new = set(paths) - known
        if new:
            self.record = msgspec.structs.replace(self.record, touched=tuple(sorted(known | new)))
            self._save()

    def command_starts(self, scan: PendingScan) -> None:
        """Save a command's pre-scan as pending, before the command runs."""
        _write(self._path(".scan"), msgspec.json.encode(scan))
        self.record = msgspec.structs.replace(self.record, command_since=scan.started)
        self._save()

    def command_ended(self, changed: Iterable[str]) -> None:
        """The command ended and its changes are recorded: declare them, and drop the pending pre-scan."""
        touched = tuple(sorted(set(self.record.touched) | set(changed)))
        self.record = msgspec.structs.replace(self.record, touched=touched, command_since=0.0)
        self._save()
        self._path(".scan").unlink(missing_ok=True)

    def close(self) -> None:
        """The turn ended: its record goes (the lock last, so nobody takes the turn for a dead one meanwhile)."""
        for kind in _KINDS:
            with contextlib.suppress(OSError):
                self._path(kind).unlink()
        os.close(self._lock)

    def _path(self, kind: str) -> Path:
        return self.folder / f"{self.record.turn}{kind}"

    def _save(self) -> None:
        _write(self._path(".json"), msgspec.json.encode(self.record))


def live_turns(store: CheckpointStore) -> list[OpenTurn]:
    """The turns open now in the project, in processes still running."""
    return [turn for turn in recorded_turns(store) if is_live(store, turn.turn)]


def recorded_turns(store: CheckpointStore) -> list[OpenTurn]:
    """Every readable record, live or dead."""
    folder = open_folder(store)
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        with contextlib.suppress(OSError, msgspec.ValidationError, msgspec.DecodeError):
            found.append(msgspec.json.decode(path.read_bytes(), type=OpenTurn))
    return found


def is_live(store: CheckpointStore, turn_id: str) -> bool:
    """Whether a process holds the turn's lock (the record of a process that ended is not live)."""
    with _taken(store, turn_id) as taken:
        return not taken


@contextlib.contextmanager
def dead_turn(store: CheckpointStore, turn_id: str) -> Iterator[bool]:
    """True while this process holds the lock of a turn whose process ended (then nobody else settles it)."""
    with _taken(store, turn_id) as taken:
        yield taken


def pending_scan(store: CheckpointStore, turn_id: str) -> PendingScan | None:
    """The pre-scan a turn saved before a command that never reported back (None: none, or unreadable)."""
    try:
        return msgspec.json.decode((open_folder(store) / f"{turn_id}.scan").read_bytes(), type=PendingScan)
    except (OSError, msgspec.ValidationError, msgspec.DecodeError):
        return None


def pending_scans(store: CheckpointStore) -> list[PendingScan]:
    """Every readable pending pre-scan of the project's turns."""
    return [scan for turn_id in turn_ids(store) if (scan := pending_scan(store, turn_id)) is not None]


def forget(store: CheckpointStore, turn_id: str) -> None:
    """Remove a dead turn's files (call it while holding its lock through :func:`dead_turn`)."""
    for kind in _KINDS:
        with contextlib.suppress(OSError):
            (open_folder(store) / f"{turn_id}{kind}").unlink()


def turn_ids(store: CheckpointStore) -> list[str]:
    """The ids of every turn with a file in the folder (a record, a pending scan or a lock)."""
    folder = open_folder(store)
    names = os.listdir(folder) if folder.is_dir() else []
    return sorted({name[: -len(kind)] for name in names for kind in _KINDS if name.endswith(kind)} - {""})


def refuse_open(manifests: Iterable[Manifest], store: CheckpointStore) -> None:
    """Raise :class:`TurnStillOpen` when one of ``manifests`` is the checkpoint of a turn still running."""
    running = {turn.turn: turn for turn in live_turns(store)}
    for manifest in manifests:
        if manifest.id in running:
            raise TurnStillOpen(running[manifest.id])


def busy_paths(store: CheckpointStore, but: str = "") -> dict[str, int]:
    """The paths live turns (other than ``but``) have touched, each with the process id of one of them."""
    return {path: turn.pid for turn in live_turns(store) if turn.turn != but for path in turn.touched}


@contextlib.contextmanager
def _taken(store: CheckpointStore, turn_id: str) -> Iterator[bool]:
    """Whether the turn's lock could be taken (held until the block ends): True when no process holds it."""
    try:
        descriptor = os.open(open_folder(store) / f"{turn_id}.lock", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        yield True  # no lock file: the turn is ending, or its process died before making one
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
        else:
            yield True
    finally:
        os.close(descriptor)


def _locked_file(target: Path) -> int:
    """A lock file at ``target``, locked before it appears there (so nobody finds it unlocked and takes it for dead)."""
    partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(partial, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    os.replace(partial, target)
    return descriptor


def _write(target: Path, data: bytes) -> None:
    """``data`` into ``target`` (0600) through a temporary name and a rename (a kill leaves the old or the new)."""
    partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        os.fchmod(descriptor, 0o600)
        out.write(data)
    os.replace(partial, target)
