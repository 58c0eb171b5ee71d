"""``hive undo`` and ``hive checkpoints list``, and the text the REPL's ``/undo`` and ``/rewind`` show."""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engine.checkpoints.manifest_file import DamagedRecord
from engine.checkpoints.open_turns import refuse_open
from engine.checkpoints.settle import settle
from engine.checkpoints.store import CheckpointStore, Manifest
from engine.checkpoints.undo import DamagedCheckpoint, UndoReport, first_damaged, next_to_undo, pending, rewind

if TYPE_CHECKING:
    from engine.checkpoints.undo_resume import Interruption
from engine.errors import UserError
from hive_cli.terminal_text import echo
from hive_cli.workdir import resolve_cwd


def store_for(cwd: Path) -> CheckpointStore:
    """The checkpoint store of the project ``cwd`` belongs to, the records of hives that ended settled first."""
    store = CheckpointStore.for_project(cwd)
    settle(store)
    return store


def describe(manifest: Manifest, cwd: Path) -> str:
    """One line about a turn's checkpoint: when, how many files, what it did."""
    when = datetime.datetime.fromtimestamp(manifest.created).strftime("%Y-%m-%d %H:%M:%S")
    count = len(manifest.effective)
    label = manifest.label or "(no label)"
    return f"{when}  {count} file{'s' if count != 1 else ''}  {label}"


def plan_lines(manifest: Manifest, cwd: Path) -> list[str]:
    """What undoing ``manifest`` would do, one line per path."""
    lines = []
    for path, change in sorted(manifest.effective.items()):
        action = "remove" if change.before is None else "recreate" if change.after is None else "restore"
        lines.append(f"  {action} {_shown(path, cwd)}")
    return lines


def report_lines(reports: list[UndoReport], cwd: Path) -> list[str]:
    """What the undo did."""
    lines = []
    for report in reports:
        done = len(report.restored) + len(report.removed)
        lines.append(f"Undid the turn of {describe(report.manifest, cwd)}: {done} path(s) put back.")
        lines += [f"  not restored: {_shown(c.path, cwd)} ({c.reason})" for c in report.skipped]
        if report.skipped:
            lines.append("  The paths not restored were left exactly as they are now.")
    return lines


SHOWN_TURNS = 20
"""``hive checkpoints list`` shows the newest this many turns unless asked for more (``--limit N``, ``--all``)."""


def checkpoint_lines(cwd: Path, limit: int | None = None) -> list[str]:
    """The checkpoints of this project, the newest first; undoable ones numbered as ``/rewind`` takes them.

    A damaged record is listed by its file name with what is wrong: undo cannot pass it. With ``limit``,
    only the newest ``limit`` records are read, and a last line says how many older ones there are.
    """
    store = store_for(cwd)
    noted = store.newest_names()
    enough = limit is not None and limit <= len(noted.names)
    names = noted.names if noted.complete or enough else store.record_names()
    count = noted.count if enough else len(names)
    lines: list[str] = []
    number, blocked = 0, False
    for name in names[:limit] if limit is not None else names:
        record = store.read_record(name)
        if isinstance(record, DamagedRecord):
            lines.append(f"  !  {record.name}  damaged: {record.problem}")
            blocked = True
        elif record is not None and record.effective:
            undoable = not record.undone and not blocked
            number += undoable
            mark = f"{number:>3}" if undoable else "  -"
            state = "" if undoable else "  (undone)" if record.undone else "  (behind a damaged record)"
            lines.append(f"{mark}  {record.id}  {describe(record, cwd)}{state}")
            missing = store.missing_blobs(record) if not record.undone else []
            lines += [f"  !  damaged: the kept copy of {_shown(path, cwd)} is missing" for path in missing]
    if limit is not None and count > limit:
        lines.append(f"  ... {count - limit} older record(s): --all or --limit N shows them")
    return lines


def list_checkpoints(cwd: Path | None, limit: int | None = SHOWN_TURNS) -> None:
    """Print the project's checkpoints (``hive checkpoints list``): the newest ``limit`` (None: all)."""
    lines = checkpoint_lines(resolve_cwd(cwd), limit)
    if not lines:
        echo("No checkpoints for this directory.", err=True)
        return
    for line in lines:
        echo(line)


def undo(cwd: Path | None, *, yes: bool, force: bool, to: str | None = None) -> None:
    """Revert the most recent turn that changed files (or every turn back to ``to``), asking first unless ``yes``."""
    where = resolve_cwd(cwd)
    store = store_for(where)
    if finish_interrupted(store, where, yes=yes, force=force):
        return
    chosen = chosen_turns(store, to)
    if not chosen:
        echo("Nothing to undo in this directory.", err=True)
        return
    for manifest in chosen:
        echo(f"Undo the turn of {describe(manifest, where)}:", err=True)
        for line in plan_lines(manifest, where):
            echo(line, err=True)
    if not _confirmed(yes):
        return
    for line in report_lines(rewind(store, chosen[-1], force=force), where):
        echo(line)


def finish_interrupted(store: CheckpointStore, where: Path, *, yes: bool, force: bool) -> bool:
    """An undo killed half-way is finished (asking, as any undo does) and nothing else is undone; False when none was."""
    from engine.checkpoints.undo_resume import finish, interrupted

    found = interrupted(store)
    if found is None:
        return False
    echo(interruption_line(found, where), err=True)
    if _confirmed(yes):
        for line in report_lines(finish(store, found, force=force), where):
            echo(line)
        echo("The interrupted undo is finished; nothing else was undone.", err=True)
    return True


def interruption_line(found: Interruption, cwd: Path) -> str:
    """What the interrupted undo was doing and how far it got."""
    current = found.current
    if current is None:
        line = f"Finishing an undo of {len(found.turns)} turn(s) interrupted before it began"
    else:
        line = f"Finishing the undo of the turn of {describe(current, cwd)}, interrupted at {found.done} of {len(found.plan.steps)} steps"
    later = len(found.turns) - (current is not None)
    return line + (f", then {later} more turn(s) it was to undo." if later and current else ".")


def chosen_turns(store: CheckpointStore, to: str | None) -> list[Manifest]:
    """The turns to undo, the newest first: the newest one, or every one back to ``to``.

    Raises :class:`DamagedCheckpoint` when a damaged record is the next to undo or lies before ``to``, and
    refuses (``TurnStillOpen``) when one of them is still running in a hive process.
    """
    if to is None:
        newest = next_to_undo(store)  # only the newest records are read
        if isinstance(newest, DamagedRecord):
            raise DamagedCheckpoint(newest)
        if newest is None:
            return []
        refuse_open([newest], store)
        return [newest]
    turns = pending(store, limit=int(to) if to.isdigit() and int(to) > 0 else None)
    if not turns:
        if (damaged := first_damaged(store)) is not None:
            raise DamagedCheckpoint(damaged)
        return []
    try:
        target = pick(turns, to)
    except UserError:
        if (damaged := first_damaged(store)) is not None:
            raise DamagedCheckpoint(damaged) from None
        raise
    chosen = turns[: turns.index(target) + 1]
    refuse_open(chosen, store)
    return chosen


def _confirmed(yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        raise UserError("undo changes files: pass --yes to undo without a question")
    if click.confirm("Undo?", default=False, err=True):
        return True
    echo("Nothing changed.", err=True)
    return False


def pick(turns: list[Manifest], choice: str) -> Manifest:
    """The turn ``choice`` names: its number in the list (1 = the newest) or its id (or the id's start)."""
    if choice.isdigit() and 1 <= int(choice) <= len(turns):
        return turns[int(choice) - 1]
    found = [m for m in turns if m.id.startswith(choice)]
    if len(found) != 1:
        raise UserError(f"no checkpoint {choice!r} to go back to; `hive checkpoints list` shows them")
    return found[0]


def _shown(path: str, cwd: Path) -> str:
    try:
        return os.path.relpath(path, cwd) if Path(path).is_relative_to(cwd) else path
    except ValueError:
        return path
