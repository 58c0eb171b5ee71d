"""Finishing an undo that was killed half-way, from the plan it wrote (:mod:`.undo_plan`).

The steps not marked done are judged path by path: a path as it was before the turn is done
already, one still as the turn left it is put back, and one that is neither (changed since) refuses
the finish, as a plain undo refuses, unless forced. Then the turns of the plan not begun yet are
undone as usual, and the plan goes.
"""

from __future__ import annotations

from msgspec import Struct, field

from engine.checkpoints import nofollow
from engine.checkpoints.manifest_file import DamagedRecord
from engine.checkpoints.states import current_state
from engine.checkpoints.store import CheckpointStore, Manifest
from engine.checkpoints.undo import (
    Conflict,
    DamagedCheckpoint,
    UndoRefused,
    UndoReport,
    revert,
    run_steps,
    same_state,
)
from engine.checkpoints.undo_plan import DamagedPlan, PlanBook, PlanRun, UndoPlan


class Interruption(Struct, frozen=True):
    """An undo that did not finish: its plan, the turns left, and how far the one in progress got."""

    plan: UndoPlan
    turns: list[Manifest] = field(default_factory=list)
    """The turns of the plan not undone yet, the one in progress first."""
    done: int = 0
    """Steps of the turn in progress already marked done."""

    @property
    def current(self) -> Manifest | None:
        """The turn the undo was in the middle of (None: it was killed before the first step)."""
        return next((turn for turn in self.turns if turn.id == self.plan.current), None)


def interrupted(store: CheckpointStore) -> Interruption | None:
    """The undo of this project that did not finish, or None; raises when its plan or a turn of it is damaged."""
    book = PlanBook(store)
    plan = book.read()
    if plan is None:
        return None
    records = {_stem(record): record for record in store.records()}
    turns = []
    for turn_id in plan.turns:
        record = records.get(turn_id)
        if record is None:
            raise DamagedPlan(f"the interrupted undo's turn {turn_id} is no longer kept; delete {book.plan_path}")
        if isinstance(record, DamagedRecord):
            raise DamagedCheckpoint(record)
        if not record.undone:
            turns.append(record)
    return Interruption(plan, turns, len(book.done_steps(plan.current)))


def finish(store: CheckpointStore, interruption: Interruption, *, force: bool = False) -> list[UndoReport]:
    """Finish the interrupted undo: the rest of the turn in progress, then the turns it had not begun."""
    plan = interruption.plan
    run = PlanRun(PlanBook(store), plan)
    force = force or plan.force
    reports: list[UndoReport] = []
    try:
        for turn in interruption.turns:
            if turn.id == plan.current:
                reports.append(_resume(turn, store, run, force=force))
            else:
                reports.append(revert(turn, store, force=force, plan=run))
    except UndoRefused as refused:
        if refused.manifest.id != plan.current:
            run.finish()  # the refused turn was not touched: nothing is left half-done
        raise
    finally:
        run.close()
    run.finish()
    return reports


def _resume(manifest: Manifest, store: CheckpointStore, run: PlanRun, *, force: bool) -> UndoReport:
    plan = run.plan
    if any(path not in manifest.changes for _, path in plan.steps):
        raise DamagedPlan(
            f"the interrupted undo's plan does not match the turn {manifest.id}; delete {run.book.plan_path}"
        )
    done = run.book.done_steps(manifest.id)
    left = [(index, step) for index, step in enumerate(plan.steps) if index not in done]
    if left:
        nofollow.remove_partials(left[0][1][1])  # the step the kill cut short may have left its temporary file
    problems = _conflicts(manifest, {path for _, (_, path) in left}, store)
    if problems and not force:
        raise UndoRefused(manifest, problems)
    report = UndoReport(manifest, skipped=problems)
    skipped = {conflict.path for conflict in problems}
    run_steps(manifest, store, report, [step for step in left if step[1][1] not in skipped], run)
    report.restored = sorted({p for _, p in plan.steps if manifest.changes[p].before is not None and p not in skipped})
    report.removed = sorted(p for action, p in plan.steps if action == "remove" and current_state(p) is None)
    return report


def _conflicts(manifest: Manifest, paths: set[str], store: CheckpointStore) -> list[Conflict]:
    """Why a path left to put back is neither as the turn left it nor as it was before (so done already)."""
    found = []
    for path in sorted(paths):
        change = manifest.changes[path]
        link = nofollow.link_on_path(path)
        now = current_state(path)
        folder_back = (
            change.before is not None and change.before.kind == "dir" and now is not None and now.kind == "dir"
        )
        if link is not None:
            found.append(Conflict(path, str(link), through_link=True))
        elif not (folder_back or same_state(now, change.before) or same_state(now, change.after)):
            found.append(Conflict(path, "changed after hive touched it"))
    missing = [p for p in store.missing_blobs(manifest) if p in paths and p not in {c.path for c in found}]
    return found + [Conflict(p, "its kept copy is missing from the store or damaged") for p in missing]


def _stem(record: Manifest | DamagedRecord) -> str:
    return record.id if isinstance(record, Manifest) else record.name.removesuffix(".json")
