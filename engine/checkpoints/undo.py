"""Reverting a turn's checkpoint: created paths removed, changed and deleted ones restored byte for byte.

Before anything is touched every path is checked: it must be exactly as the turn left it (its
after-state), its before-state must have been recorded, and the bytes must still be in the store.
Any failure refuses the whole undo with the list of problems, unless ``force``: then every path with a
problem is left exactly as it is (a file the person edited since keeps their edit; one whose
before-state was not kept stays as the turn left it) and the others are restored.

No link is ever followed (:mod:`.nofollow`): a path with a link among its folders (a command swapped
``src/d`` for a link to a folder outside the project, say) is refused by name, and with ``force`` left
alone; what is restored or removed is always the entry itself, never where a link points.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from msgspec import Struct, field

from engine.checkpoints import nofollow, open_turns
from engine.checkpoints.states import current_state
from engine.checkpoints.store import CheckpointStore, FileState, Manifest
from engine.errors import HiveError

T = TypeVar("T")


class Conflict(Struct, frozen=True):
    """Why one path cannot be reverted safely."""

    path: str
    reason: str
    through_link: bool = False
    """A folder on the path is a symbolic link now: the path is left alone, even with ``force``."""


class UndoRefused(HiveError):
    """An undo would overwrite something hive did not do; nothing was changed. The message lists why."""

    def __init__(self, manifest: Manifest, conflicts: list[Conflict]) -> None:
        lines = [f"{c.path}: {c.reason}" for c in conflicts]
        super().__init__(
            f"Undo refused for the turn of {manifest.id}: nothing was changed.\n  "
            + "\n  ".join(lines)
            + "\nUse --force to restore the others anyway; the paths above are then left as they are."
        )
        self.manifest = manifest
        self.conflicts = conflicts


class UndoReport(Struct):
    """What an undo did."""

    manifest: Manifest
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[Conflict] = field(default_factory=list)
    """The paths left exactly as they were found (a forced undo's conflicts, a link found on the way)."""


def pending(store: CheckpointStore) -> list[Manifest]:
    """The turns that can still be undone, the newest first."""
    return [m for m in reversed(store.manifests()) if not m.undone and m.effective]


def conflicts(manifest: Manifest, store: CheckpointStore) -> list[Conflict]:
    """Every reason reverting ``manifest`` now would not be exact."""
    found = []
    busy = open_turns.busy_paths(store, but=manifest.id)  # another hive working on a path now: leave it to them
    for path, change in sorted(manifest.effective.items()):
        link = nofollow.link_on_path(path)
        if path in busy:
            found.append(Conflict(path, f"another hive (process {busy[path]}) is working on it now"))
        elif link is not None:
            found.append(Conflict(path, str(link), through_link=True))
        elif not _same(current_state(path), change.after):
            found.append(Conflict(path, "changed after hive touched it"))
        elif change.before is not None and change.before.kind == "unrecorded":
            found.append(Conflict(path, f"its earlier state was not kept ({change.before.reason})"))
        elif change.before is not None and change.before.kind == "file" and not store.has_blob(change.before.blob):
            found.append(Conflict(path, "its kept copy is missing from the store or damaged"))
    return found


def revert(manifest: Manifest, store: CheckpointStore, *, force: bool = False) -> UndoReport:
    """Put back what ``manifest``'s turn changed; raises :class:`UndoRefused` on a conflict unless ``force``."""
    problems = conflicts(manifest, store)
    if problems and not force:
        raise UndoRefused(manifest, problems)
    report = UndoReport(manifest, skipped=problems)  # with force: never over what hive did not leave there
    changes = {p: c for p, c in manifest.effective.items() if p not in _paths(report.skipped)}
    # Folders first, shallowest first; then files and links; then what the turn created, deepest first.
    folders = sorted((p for p, c in changes.items() if _is(c.before, "dir")), key=_depth)
    for path in folders:
        _attempt(report, path, nofollow.make_folder)
    for path, change in sorted(changes.items()):
        before = change.before
        if before is not None and before.kind != "dir":
            _attempt(report, path, partial(_restore_entry, state=before, store=store))
    for path in sorted((p for p, c in changes.items() if c.before is None), key=_depth, reverse=True):
        if _attempt(report, path, nofollow.remove):
            report.removed.append(path)
    for path in reversed(folders):  # modes last: a folder made read-only again must first be filled
        mode = changes[path].before.mode  # type: ignore[union-attr]
        _attempt(report, path, partial(nofollow.set_folder_mode, mode=mode))
    refused = _paths(report.skipped)
    report.restored = sorted(p for p, c in changes.items() if c.before is not None and p not in refused)
    manifest.undone = True
    store.save(manifest)
    return report


def _attempt(report: UndoReport, path: str, action: Callable[[str], T]) -> T | None:
    """``action(path)``; a link found on the way (made since the check) leaves the path alone, said in the report."""
    if path in _paths(report.skipped):
        return None
    try:
        return action(path)
    except nofollow.LinkOnPath as refused:
        report.skipped.append(Conflict(path, str(refused), through_link=True))
        return None


def _paths(conflicts: list[Conflict]) -> set[str]:
    return {c.path for c in conflicts}


def _same(now: FileState | None, after: FileState | None) -> bool:
    if now is None or after is None:
        return now is None and after is None
    return (now.kind, now.blob, now.mode, now.target) == (after.kind, after.blob, after.mode, after.target)


def _is(state: FileState | None, kind: str) -> bool:
    return state is not None and state.kind == kind


def _depth(path: str) -> int:
    return len(Path(path).parts)


def _restore_entry(path: str, state: FileState, store: CheckpointStore) -> None:
    """Put a file or link back, through a temporary name in the same folder and a rename."""
    if state.kind == "link":
        nofollow.put_link(path, state.target)
    else:
        nofollow.put_file(path, store.read_blob(state.blob), state.mode)


def rewind(store: CheckpointStore, target: Manifest, *, force: bool = False) -> list[UndoReport]:
    """Undo every turn from the newest back to ``target`` included, the newest first.

    Each turn is checked just before it is reverted; a refusal stops there (the newer ones stay undone,
    and the refusal says how many there were).
    """
    reports: list[UndoReport] = []
    for manifest in pending(store):
        try:
            reports.append(revert(manifest, store, force=force))
        except UndoRefused as refused:
            if reports:
                refused.args = (f"{refused.args[0]}\n{len(reports)} newer turn(s) were undone before it.",)
            raise
        if manifest.id == target.id:
            break
    return reports
