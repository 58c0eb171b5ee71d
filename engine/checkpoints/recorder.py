"""The checkpoint of the turn in progress: before-states gathered call by call, saved at the end of every round.

A turn, for undo, is one request of the person: every model round of one run. The loop tells each
finished round to the turn observers (``TurnRecord.index`` 0 is a run's first round), so the
recorder opens a new checkpoint on round 0 and, after every round, records the after-state of
each path the turn touched and rewrites the turn's manifest. A round cut short (an interrupt, a
crash) never reaches the observers: what its calls captured joins the next turn's checkpoint.

While a turn runs, its record among the project's open turns (:mod:`.open_turns`) declares every
path it touches, so other hives working in the project leave them out of their own turns; the
record goes when the run ends (:meth:`close_turn`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from engine.checkpoints.open_turns import PendingScan, TurnHandle
from engine.checkpoints.states import after_state, capture_state, lstat_or_none
from engine.checkpoints.store import Change, CheckpointStore, FileState, Manifest, new_turn_id
from engine.events import TurnRecord

MAX_LABEL = 120


class TurnRecorder:
    """Gathers the before-state of every path the current turn changes, and saves the turn's manifest."""

    def __init__(self, store: CheckpointStore, cwd: Path, max_file_bytes: int) -> None:
        self.store = store
        self.cwd = cwd
        self.max_file_bytes = max_file_bytes
        self.current: Manifest | None = None
        self._pending: dict[str, FileState | None] = {}
        self._labels: list[str] = []
        self._lock = threading.Lock()
        self.turn: TurnHandle | None = None
        """The record of the turn open now among the project's open turns."""
        self.own_turns: set[str] = set()
        """The turns this recorder opened: one after the other, never at the same time as each other."""

    def seen(self, path: str) -> bool:
        """Whether the round already holds a before-state for ``path`` (the first one is the one kept)."""
        return path in self._pending

    def capture(self, path: Path) -> None:
        """Keep what is at ``path`` now, and mark the missing folders above it as absent (a write creates them)."""
        with self._lock:
            text = str(path)
            added = [text]
            if not self.seen(text):
                self._pending[text] = capture_state(text, self.store, self.max_file_bytes)
            parent = path.parent
            while parent != parent.parent and lstat_or_none(parent) is None and not self.seen(str(parent)):
                self._pending[str(parent)] = None
                added.append(str(parent))
                parent = parent.parent
            self._open_turn().touch(added)  # before the tool writes: another hive's scan then leaves them alone

    def record(self, path: str, before: FileState | None) -> None:
        """Keep ``before`` as the state ``path`` had before the turn touched it (unless one is already kept)."""
        with self._lock:
            if not self.seen(path):
                self._pending[path] = before

    def command_starts(self, scan: PendingScan) -> None:
        """A shell command is about to run: save its pre-scan as pending (a kill mid-command stays undoable)."""
        with self._lock:
            self._open_turn().command_starts(scan)

    def command_ended(self, changed: dict[str, FileState | None]) -> None:
        """The command's changes (path: before-state) join the turn, and are declared; the pending pre-scan goes."""
        with self._lock:
            for path, before in changed.items():
                if not self.seen(path):
                    self._pending[path] = before
            self._open_turn().command_ended(changed)

    def declare(self, paths: list[str]) -> None:
        """Declare ``paths`` as touched by this turn without recording them (other hives then leave them too)."""
        with self._lock:
            self._open_turn().touch(paths)

    def close_turn(self) -> None:
        """The run ended: the turn is no longer open (its record among the open turns goes)."""
        with self._lock:
            if self.turn is not None:
                self.turn.close()
                self.turn = None
            self.current = None

    def _open_turn(self) -> TurnHandle:
        """The record of the open turn, made when the turn first touches something (or its first round ends)."""
        if self.turn is None:
            self.turn = TurnHandle(self.store, new_turn_id(), self.cwd, touched=self._pending)
            self.own_turns.add(self.turn.turn_id)
        return self.turn

    def note(self, label: str) -> None:
        """Add what a call did to the turn's label."""
        self._labels.append(label)

    def end_round(self, record: TurnRecord) -> None:
        """A round ended: open a new checkpoint on a run's first round, then save the after-states."""
        with self._lock:
            if self.current is not None and self.turn is not None and self.current.id == self.turn.turn_id:
                if record.index == 0:  # a new run whose predecessor's end was never seen: that turn is over
                    self.turn.close()
                    self.turn = None
            if record.index == 0 or self.current is None:
                self.current = Manifest(id=self._open_turn().turn_id, created=time.time(), cwd=str(self.cwd))
            manifest = self.current
            self._open_turn().touch(self._pending)
            for path, before in self._pending.items():
                manifest.changes.setdefault(path, Change(before, None))  # an earlier round's state is older
            self._pending.clear()
            for path, change in manifest.changes.items():
                manifest.changes[path] = Change(change.before, after_state(path, change.before, self.max_file_bytes))
            if self._labels:
                manifest.label = _label(manifest.label, self._labels)
                self._labels.clear()
            if manifest.effective:
                self.store.save(manifest)
            else:  # a later round undid what an earlier one saved: nothing left to undo
                self.store.discard(manifest.id)

    async def __call__(self, record: TurnRecord) -> None:
        """The recorder as a turn observer (the hashing runs off the event loop)."""
        await asyncio.to_thread(self.end_round, record)


def _label(old: str, new: list[str]) -> str:
    text = "; ".join([old, *new] if old else new)
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"
