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

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TypeVar

from msgspec import Struct, field

from engine.checkpoints import nofollow, open_turns
from engine.checkpoints.manifest_file import DamagedRecord
from engine.checkpoints.states import current_state
from engine.checkpoints.store import Change, CheckpointStore, FileState, Manifest
from engine.checkpoints.undo_plan import PlanRun, StepAction
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


class DamagedCheckpoint(HiveError):
    """The next turn to undo (or one between now and the target) has a damaged record: undo cannot pass it."""

    def __init__(self, record: DamagedRecord) -> None:
        super().__init__(
            f"Undo refused: the checkpoint record {record.path} is damaged ({record.problem}); nothing was changed.\n"
            "Undo goes back one turn at a time and cannot pass a turn it cannot read. Delete that file to give up"
            " undoing that turn (its changes stay as they are), then undo again."
        )
        self.record = record


def undo_order(store: CheckpointStore) -> Iterator[Manifest | DamagedRecord]:
    """The records undo would go back over, the newest first: turns not undone yet, and every damaged record.

    Each record is read when it is reached: a caller that stops early reads only the newest ones.
    """
    for record in store.newest_first():
        if isinstance(record, DamagedRecord) or (not record.undone and record.effective):
            yield record


def pending(store: CheckpointStore, *, through: str | None = None, limit: int | None = None) -> list[Manifest]:
    """The turns that can still be undone, the newest first, up to the first damaged record (undo goes in order);
    with ``through``, no further than the turn of that id; with ``limit``, at most that many (older ones unread)."""
    found: list[Manifest] = []
    for record in undo_order(store):
        if isinstance(record, DamagedRecord) or len(found) == limit:
            break
        found.append(record)
        if record.id == through:
            break
    return found


def next_to_undo(store: CheckpointStore) -> Manifest | DamagedRecord | None:
    """The record undo would reach first (a damaged one stops it), reading no older one."""
    return next(undo_order(store), None)


def first_damaged(store: CheckpointStore) -> DamagedRecord | None:
    """The damaged record undo would reach after the turns :func:`pending` lists, if any."""
    return next((record for record in undo_order(store) if isinstance(record, DamagedRecord)), None)


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
        elif change.before is not None and change.before.kind == "unrecorded":  # first: it is not read for nothing
            found.append(Conflict(path, f"its earlier state was not kept ({change.before.reason})"))
        elif not same_state(current_state(path), change.after):
            found.append(Conflict(path, "changed after hive touched it"))
        elif change.before is not None and change.before.kind == "file" and not store.has_blob(change.before.blob):
            found.append(Conflict(path, "its kept copy is missing from the store or damaged"))
    return found


def revert(
    manifest: Manifest, store: CheckpointStore, *, force: bool = False, plan: PlanRun | None = None
) -> UndoReport:
    """Put back what ``manifest``'s turn changed; raises :class:`UndoRefused` on a conflict unless ``force``.

    With ``plan``, the steps are written to it before the first is taken and each is marked when done.
    """
    problems = conflicts(manifest, store)
    if problems and not force:
        raise UndoRefused(manifest, problems)
    report = UndoReport(manifest, skipped=problems)  # with force: never over what hive did not leave there
    changes = {p: c for p, c in manifest.effective.items() if p not in _paths(report.skipped)}
    steps = plan_steps(changes)
    if plan is not None:
        plan.begin_turn(manifest.id, steps)
    run_steps(manifest, store, report, list(enumerate(steps)), plan)
    return report


def plan_steps(changes: dict[str, Change]) -> list[tuple[StepAction, str]]:
    """The steps that put ``changes`` back, in the order they are taken.

    Folders first, shallowest first; then files and links; then what the turn created, deepest first;
    folders' modes last (a folder made read-only again must first be filled).
    """
    folders = sorted((p for p, c in changes.items() if _is(c.before, "dir")), key=_depth)
    steps: list[tuple[StepAction, str]] = [("folder", path) for path in folders]
    steps += [("restore", p) for p, c in sorted(changes.items()) if c.before is not None and c.before.kind != "dir"]
    created = sorted((p for p, c in changes.items() if c.before is None), key=_depth, reverse=True)
    steps += [("remove", path) for path in created]
    return steps + [("mode", path) for path in reversed(folders)]


def run_steps(
    manifest: Manifest,
    store: CheckpointStore,
    report: UndoReport,
    steps: list[tuple[int, tuple[StepAction, str]]],
    plan: PlanRun | None,
) -> None:
    """Take the numbered ``steps`` (marking each in ``plan``), fill ``report`` and record the turn as undone."""
    for index, (action, path) in steps:
        before = manifest.changes[path].before
        if action == "folder":
            _attempt(report, path, nofollow.make_folder)
        elif action == "restore" and before is not None:
            _attempt(report, path, partial(_restore_entry, state=before, store=store))
        elif action == "remove" and _attempt(report, path, nofollow.remove):
            report.removed.append(path)
        elif action == "mode" and before is not None:
            _attempt(report, path, partial(nofollow.set_folder_mode, mode=before.mode))
        if plan is not None:
            plan.mark_done(manifest.id, index)
    refused = _paths(report.skipped)
    paths = {path for _, (_, path) in steps}
    report.restored = sorted(p for p in paths if manifest.changes[p].before is not None and p not in refused)
    manifest.undone = True
    store.save(manifest)


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


def same_state(now: FileState | None, after: FileState | None) -> bool:
    """Whether two states are alike for undo (kind, bytes, mode, link target)."""
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

    The plan (the turns, then each turn's steps) is written before anything is restored and removed
    at the end, so an undo killed half-way can be finished (:mod:`.undo_resume`). Each turn is checked
    just before it is reverted; a refusal stops there (the newer ones stay undone, and the refusal says
    how many there were).
    """
    turns = pending(store, through=target.id)
    chosen = turns[: turns.index(target) + 1]
    plan = PlanRun.start(store, [m.id for m in chosen], force=force)
    reports: list[UndoReport] = []
    try:
        for manifest in chosen:
            reports.append(revert(manifest, store, force=force, plan=plan))
    except UndoRefused as refused:
        plan.finish()  # the refused turn was not touched: nothing is left half-done
        if reports:
            refused.args = (f"{refused.args[0]}\n{len(reports)} newer turn(s) were undone before it.",)
        raise
    finally:
        plan.close()
    plan.finish()
    return reports
