"""The checkpoint store: content-addressed blobs and one manifest per turn, under the user data dir.

Layout, per project (the project root's real path, hashed)::

    <user data dir>/checkpoints/<project hash>/
        objects/<sha256[:2]>/<sha256[2:]>   file contents, each stored once
        turns/<turn id>.json               one manifest per turn that changed files

Nothing here uses the user's git, so checkpoints work in any folder. Every file is written under a
temporary name and renamed into place, so a crash leaves either the old file or the new one.

A blob is a copy of a file of the project (a credentials file, say): the store's folders are 0700
and its files 0600 whatever the umask (:mod:`engine.private_files`), so no copy is ever readable by
more people than its source. The source's own mode is kept in the manifest, and undo gives it back.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct, field

from engine.disk_full import writing
from engine.paths import project_root, user_data_dir
from engine.private_files import make_private, private_dir

if TYPE_CHECKING:
    from engine.checkpoints.manifest_file import DamagedRecord
    from engine.checkpoints.newest import Newest

StateKind = Literal["file", "dir", "link", "unrecorded"]
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
MANIFEST_VERSION = 1
_NOTHING_CHANGED = "nothing was changed: hive does not touch what it could not put back"
_NOT_UNDOABLE = "the turn's changes are on disk, but this turn cannot be undone"


class FileState(Struct, frozen=True, kw_only=True):
    """What was at a path: a file (its blob and mode), a folder, a symbolic link, or something not recorded."""

    kind: StateKind
    blob: str = ""
    """The sha256 of a file's bytes."""
    mode: int = 0
    """The permission bits of a file or a folder."""
    target: str = ""
    """Where a symbolic link points."""
    reason: str = ""
    """Why an ``unrecorded`` state could not be kept (a file larger than ``max_file_bytes``, say)."""
    git: str = ""
    """A pre-scan's file not copied: the id of the git blob with its bytes (copied once changed; never saved)."""

    def to_json(self) -> dict[str, Any]:
        """The manifest entry for this state."""
        data: dict[str, Any] = {"kind": self.kind}
        for key in ("blob", "mode", "target", "reason"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> FileState | None:
        """The state a manifest entry describes (None for a path that did not exist)."""
        if data is None:
            return None
        return cls(
            kind=data["kind"],
            blob=data.get("blob", ""),
            mode=data.get("mode", 0),
            target=data.get("target", ""),
            reason=data.get("reason", ""),
        )


class Change(Struct, frozen=True):
    """One path a turn changed: its state before the turn (None: absent) and at the turn's end."""

    before: FileState | None
    after: FileState | None


class Manifest(Struct, kw_only=True):
    """One turn's checkpoint: the paths it changed, each with its before- and after-state."""

    id: str
    created: float
    cwd: str
    label: str = ""
    """What the turn did, for people (the tool calls, shortened)."""
    changes: dict[str, Change] = field(default_factory=dict)
    undone: bool = False

    def to_json(self) -> dict[str, Any]:
        """The manifest as written to disk."""
        return {
            "version": MANIFEST_VERSION,
            "id": self.id,
            "created": self.created,
            "cwd": self.cwd,
            "label": self.label,
            "undone": self.undone,
            "files": {
                path: {
                    "before": change.before.to_json() if change.before else None,
                    "after": change.after.to_json() if change.after else None,
                }
                for path, change in sorted(self.changes.items())
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        """A manifest read back from disk."""
        changes = {
            path: Change(FileState.from_json(entry["before"]), FileState.from_json(entry["after"]))
            for path, entry in data["files"].items()
        }
        return cls(
            id=data["id"],
            created=data["created"],
            cwd=data["cwd"],
            label=data.get("label", ""),
            changes=changes,
            undone=data.get("undone", False),
        )

    @property
    def effective(self) -> dict[str, Change]:
        """The changes that changed something (a path written back as it was is left out)."""
        return {path: change for path, change in self.changes.items() if change.before != change.after}


def new_turn_id() -> str:
    """A fresh turn id that sorts by time."""
    return f"{time.time_ns():020d}-{secrets.token_hex(3)}"


def project_key(cwd: Path) -> str:
    """The folder name of a project's store: a hash of its root's real path."""
    root = os.path.realpath(project_root(cwd))
    return hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def checkpoints_dir(cwd: Path) -> Path:
    """Where the checkpoints of the project of ``cwd`` are kept."""
    return user_data_dir() / "checkpoints" / project_key(cwd)


class CheckpointStore:
    """The blobs and manifests of one project."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.objects = root / "objects"
        self.turns = root / "turns"

    @classmethod
    def for_project(cls, cwd: Path) -> CheckpointStore:
        """The store of the project ``cwd`` belongs to (narrowed first, when an earlier version left it open)."""
        store = cls(checkpoints_dir(cwd))
        store.narrow()
        return store

    def narrow(self) -> None:
        """A store an earlier version made under the umask (its root wider than 0700): every folder 0700, file 0600."""
        try:
            if os.stat(self.root, follow_symlinks=False).st_mode & 0o077 == 0:
                return
        except OSError:
            return
        for folder, _, files in os.walk(self.root):
            make_private(Path(folder))
            for name in files:
                make_private(Path(folder, name))

    def blob_path(self, digest: str) -> Path:
        """Where the blob ``digest`` is (or would be) kept."""
        return self.objects / digest[:2] / digest[2:]

    def put_bytes(self, data: bytes) -> str:
        """Keep ``data`` (once, however often it is given); return its sha256."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.blob_path(digest)
        try:
            kept = os.stat(target)
        except OSError:
            # Not synced (a command may keep thousands): a blob a crash damaged fails its check on reading.
            with writing("a checkpoint copy", self.root, _NOTHING_CHANGED):
                write_atomic(target, data, sync=False)
        else:
            if kept.st_mode & 0o077:  # kept by an earlier version, under the umask
                make_private(target)
        return digest

    def read_blob(self, digest: str) -> bytes:
        """The bytes of a blob, checked against their hash; raises ``OSError`` when missing or damaged."""
        data = self.blob_path(digest).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise OSError(f"the kept copy {digest[:12]} is damaged")
        return data

    def has_blob(self, digest: str) -> bool:
        """Whether the blob is kept and intact."""
        try:
            self.read_blob(digest)
        except OSError:
            return False
        return True

    def save(self, manifest: Manifest) -> None:
        """Write (or rewrite) a manifest atomically."""
        data = json.dumps(manifest.to_json(), indent=1, sort_keys=True).encode("utf-8")
        with writing("a checkpoint record", self.root, _NOT_UNDOABLE):
            write_atomic(self.turns / f"{manifest.id}.json", data)

    def discard(self, manifest_id: str) -> None:
        """Remove a manifest (a turn whose changes came to nothing in the end)."""
        (self.turns / f"{manifest_id}.json").unlink(missing_ok=True)

    def records(self) -> list[Manifest | DamagedRecord]:
        """Every manifest, the oldest first; one that cannot be read is there as a :class:`DamagedRecord`."""
        return list(reversed(list(self.newest_first())))

    def record_names(self) -> list[str]:
        """The file names of the manifests, the newest first (turn ids sort by time): the folder listed, nothing read."""
        try:
            names = [name for name in os.listdir(self.turns) if name.endswith(".json") and not name.startswith(".")]
        except OSError:
            return []
        return sorted(names, reverse=True)

    def newest_names(self) -> Newest:
        """The newest record names (every one, or the newest few noted while the folder did not change) and the count."""
        from engine.checkpoints.newest import newest

        return newest(self.turns, self.record_names)

    def newest_first(self) -> Iterator[Manifest | DamagedRecord]:
        """The manifests, the newest first, each read only when it is reached (a damaged one as a :class:`DamagedRecord`).

        The newest few come from the names noted beside the store; the folder is listed only if more are needed.
        """
        noted = self.newest_names()
        yield from self._read_records(noted.names)
        if not noted.complete and noted.names:
            oldest_noted = noted.names[-1]
            yield from self._read_records(name for name in self.record_names() if name < oldest_noted)

    def _read_records(self, names: Iterable[str]) -> Iterator[Manifest | DamagedRecord]:
        for name in names:
            record = self.read_record(name)
            if record is not None:
                yield record

    def read_record(self, name: str) -> Manifest | DamagedRecord | None:
        """The manifest in the file ``name`` of the turns folder; None when it was removed meanwhile."""
        from engine.checkpoints.manifest_file import DamagedRecord, decode_manifest  # it builds this module's records

        path = self.turns / name
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None  # removed meanwhile (pruned by another session)
        except OSError as exc:
            return DamagedRecord(str(path), f"it cannot be read: {exc.strerror or exc}")
        return decode_manifest(data, str(path))

    def manifests(self) -> list[Manifest]:
        """Every readable manifest, the oldest first (:meth:`records` also has the damaged ones)."""
        return [record for record in self.records() if isinstance(record, Manifest)]

    def missing_blobs(self, manifest: Manifest) -> list[str]:
        """The paths whose kept before-state bytes are not in the store (a cheap check: the blob's file exists)."""
        return sorted(
            path
            for path, change in manifest.effective.items()
            if change.before is not None
            and change.before.kind == "file"
            and not self.blob_path(change.before.blob).exists()
        )

    def prune(self, keep_days: int, *, now: float | None = None) -> int:
        """Remove turns older than ``keep_days`` and the blobs no kept turn uses (:mod:`.pruning`); the turns removed."""
        from engine.checkpoints.pruning import prune_checkpoints  # it builds on this module
        from engine.stores.caps import Caps

        unbounded = 2**62
        caps = Caps(keep_days=keep_days, max_count=unbounded, max_bytes=unbounded)
        return len(prune_checkpoints(self, caps, now=now).turns.removed)


def write_atomic(target: Path, data: bytes, *, sync: bool = True) -> None:
    """``data`` into ``target`` (0600, its missing folders 0700) through a temporary name and a rename."""
    partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(partial, _NEW_FILE, 0o600)
    except FileNotFoundError:
        private_dir(target.parent)
        descriptor = os.open(partial, _NEW_FILE, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as out:
            os.fchmod(descriptor, 0o600)  # exactly 0600, whatever the umask took away or not
            out.write(data)
            if sync:
                out.flush()
                os.fsync(out.fileno())
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)  # a write that failed (a full disk) leaves neither its bytes nor its name
        raise
