"""``hive undo`` and ``hive checkpoints list``, and the text the REPL's ``/undo`` and ``/rewind`` show."""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

import click

from engine.checkpoints.open_turns import refuse_open
from engine.checkpoints.settle import settle
from engine.checkpoints.store import CheckpointStore, Manifest
from engine.checkpoints.undo import UndoReport, pending, rewind
from engine.errors import UserError
from hive_cli.terminal_text import echo
from hive_cli.workdir import resolve_cwd


def store_for(cwd: Path) -> CheckpointStore:
    """The checkpoint store of the project ``cwd`` belongs to, the records of hives that ended settled first."""
    store = CheckpointStore.for_project(cwd)
    settle(store)
    return store


def chosen_turns(store: CheckpointStore, choice: str | None) -> tuple[list[Manifest], Manifest] | None:
    """The turns an undo back to ``choice`` reverts (the newest first) and the last of them; None: nothing to undo.

    Refuses (``TurnStillOpen``) when one of them is still running in a hive process.
    """
    turns = pending(store)
    if not turns:
        return None
    target = pick(turns, choice) if choice else turns[0]
    chosen = turns[: turns.index(target) + 1]
    refuse_open(chosen, store)
    return chosen, target


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


def checkpoint_lines(cwd: Path) -> list[str]:
    """The checkpoints of this project, the newest first; undoable ones numbered as ``/rewind`` takes them."""
    store = store_for(cwd)
    manifests = [m for m in reversed(store.manifests()) if m.effective]
    if not manifests:
        return []
    undoable = {m.id: number for number, m in enumerate(pending(store), start=1)}
    lines = []
    for manifest in manifests:
        number = undoable.get(manifest.id)
        mark = f"{number:>3}" if number is not None else "  -"
        lines.append(f"{mark}  {manifest.id}  {describe(manifest, cwd)}{'' if number else '  (undone)'}")
    return lines


def list_checkpoints(cwd: Path | None) -> None:
    """Print the project's checkpoints (``hive checkpoints list``)."""
    lines = checkpoint_lines(resolve_cwd(cwd))
    if not lines:
        echo("No checkpoints for this directory.", err=True)
        return
    for line in lines:
        echo(line)


def undo(cwd: Path | None, *, yes: bool, force: bool, to: str | None = None) -> None:
    """Revert the most recent turn that changed files (or every turn back to ``to``), asking first unless ``yes``."""
    where = resolve_cwd(cwd)
    store = store_for(where)
    found = chosen_turns(store, to)
    if found is None:
        echo("Nothing to undo in this directory.", err=True)
        return
    chosen, target = found
    for manifest in chosen:
        echo(f"Undo the turn of {describe(manifest, where)}:", err=True)
        for line in plan_lines(manifest, where):
            echo(line, err=True)
    if not yes:
        if not sys.stdin.isatty():
            raise UserError("undo changes files: pass --yes to undo without a question")
        if not click.confirm("Undo?", default=False, err=True):
            echo("Nothing changed.", err=True)
            return
    for line in report_lines(rewind(store, target, force=force), where):
        echo(line)


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
