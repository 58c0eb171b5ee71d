"""The plan of an undo, written before anything is restored, so that an undo killed half-way can be finished.

Two files in the project's checkpoint store (0600, in 0700 folders)::

    undo/plan.json   the turns being undone (manifest ids, the newest first), whether it was forced,
                     and the steps of the turn in progress, in order; rewritten atomically per turn
    undo/done        one line per step finished: "<manifest id> <step index>"; appended, not synced

A step is an action on one path of the turn's manifest (which holds the bytes and modes to put
back). Appending a short line per step keeps the cost O(entries) without an fsync per file; a line
lost to a machine crash costs nothing, since a step whose path is already as it was before the turn
counts as done when the plan is finished. Both files go when the undo ends.
"""

from __future__ import annotations

import os
import signal
from contextlib import suppress
from typing import BinaryIO, Literal

import msgspec
from msgspec import Struct, field

from engine.checkpoints.store import CheckpointStore, write_atomic
from engine.errors import HiveError
from engine.private_files import open_private_bytes, private_dir
from engine.safe_read import read_bounded

StepAction = Literal["folder", "restore", "remove", "mode"]
"""Make a folder the turn removed; put a file or link back; remove what the turn made; give a folder its mode."""
TEST_PAUSE_VARIABLE = "HIVE_TEST_PAUSE_UNDO_AFTER"
"""A test hook: with it set to N, an undo stops after its N-th step, says so on stderr and waits to be killed."""
_MAX_PLAN_BYTES = 256 << 20


class UndoPlan(Struct, frozen=True, kw_only=True):
    """The turns an undo goes back over and the steps of the one in progress."""

    turns: list[str]
    """Manifest ids, in the order they are undone (the newest first)."""
    force: bool = False
    current: str = ""
    """The turn whose steps are below ('' before the first one starts)."""
    steps: list[tuple[StepAction, str]] = field(default_factory=list)


class DamagedPlan(HiveError):
    """The plan of an interrupted undo cannot be read; the message names its file."""


class PlanBook:
    """The plan files of one project's store: written, marked step by step, read back, removed."""

    def __init__(self, store: CheckpointStore) -> None:
        self.folder = store.root / "undo"
        self.plan_path = self.folder / "plan.json"
        self.done_path = self.folder / "done"
        self._done: BinaryIO | None = None
        self._steps_done = 0

    def write(self, plan: UndoPlan) -> None:
        """Write (or rewrite) the plan atomically, synced: nothing is restored before it is on disk."""
        write_atomic(self.plan_path, msgspec.json.encode(plan))

    def mark_done(self, manifest_id: str, index: int) -> None:
        """Note that step ``index`` of the turn ``manifest_id`` is done (one appended line, flushed, not synced)."""
        if self._done is None:
            private_dir(self.folder)
            self._done = open_private_bytes(self.done_path, "a")
        self._done.write(f"{manifest_id} {index}\n".encode())
        self._done.flush()
        self._steps_done += 1
        _test_pause(self._steps_done)

    def read(self) -> UndoPlan | None:
        """The plan of an undo that did not finish, or None; raises :class:`DamagedPlan` when it cannot be read."""
        try:
            data = read_bounded(self.plan_path, limit=_MAX_PLAN_BYTES)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self._damaged(exc.strerror or str(exc)) from None
        try:
            return msgspec.json.decode(data, type=UndoPlan)
        except msgspec.MsgspecError as exc:
            raise self._damaged(str(exc)) from None

    def done_steps(self, manifest_id: str) -> set[int]:
        """The steps of the turn ``manifest_id`` marked done (a torn last line is not counted)."""
        try:
            data = read_bounded(self.done_path, limit=_MAX_PLAN_BYTES)
        except OSError:
            return set()
        done = set()
        for line in data.decode("utf-8", "replace").splitlines():
            turn, _, index = line.partition(" ")
            if turn == manifest_id and index.isdigit():
                done.add(int(index))
        return done

    def remove(self) -> None:
        """The undo ended: its plan and marks go."""
        self.close()
        for path in (self.done_path, self.plan_path):
            path.unlink(missing_ok=True)

    def close(self) -> None:
        """Close the marks file (the plan stays)."""
        if self._done is not None:
            with suppress(OSError):
                self._done.close()
            self._done = None

    def _damaged(self, why: str) -> DamagedPlan:
        return DamagedPlan(
            f"the plan of an interrupted undo, {self.plan_path}, cannot be read ({why}); nothing was changed.\n"
            "Check the project's files by hand, then delete that file to undo as usual."
        )


def _test_pause(steps_done: int) -> None:
    """The test hook of :data:`TEST_PAUSE_VARIABLE`: a kill test stops undo mid-restore by order, not by timing."""
    wanted = os.environ.get(TEST_PAUSE_VARIABLE)
    if wanted is None or wanted != str(steps_done):
        return
    os.write(2, f"hive test hook: undo paused after {steps_done} steps\n".encode())
    while True:
        signal.pause()


class PlanRun:
    """The plan of the undo this process is doing: written turn by turn, marked step by step, removed at the end."""

    def __init__(self, book: PlanBook, plan: UndoPlan) -> None:
        self.book = book
        self.plan = plan

    @classmethod
    def start(cls, store: CheckpointStore, turns: list[str], *, force: bool) -> PlanRun:
        """A new undo of ``turns`` (manifest ids, the newest first), its plan written before anything is touched."""
        run = cls(PlanBook(store), UndoPlan(turns=turns, force=force))
        run.book.write(run.plan)
        return run

    def begin_turn(self, manifest_id: str, steps: list[tuple[StepAction, str]]) -> None:
        """The turn ``manifest_id`` starts: its ``steps`` are written before the first is taken."""
        self.plan = msgspec.structs.replace(self.plan, current=manifest_id, steps=steps)
        self.book.write(self.plan)

    def mark_done(self, manifest_id: str, index: int) -> None:
        """Step ``index`` of the turn ``manifest_id`` is done."""
        self.book.mark_done(manifest_id, index)

    def close(self) -> None:
        """Close the marks file; the plan stays (an undo that stopped on an error can still be finished)."""
        self.book.close()

    def finish(self) -> None:
        """The undo ended: the plan and its marks go."""
        self.book.remove()
