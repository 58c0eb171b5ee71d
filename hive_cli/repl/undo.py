"""The REPL's ``/undo`` and ``/rewind``: revert the last turn that changed files, or every turn back to one.

The question is one key, as approvals are (y undoes; n, Esc or Ctrl-C do not). What was put back is
told to the model with the next request: it would otherwise go on from files that are no longer there.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import HTML
from rich.text import Text

from engine.errors import HiveError

if TYPE_CHECKING:
    from engine.checkpoints.undo import UndoReport
    from hive_cli.repl.state import ReplState
    from hive_cli.repl.view import ReplView


async def undo_command(state: ReplState, view: ReplView, arg: str) -> None:
    """``/undo [--force]``: revert the most recent turn that changed files in this directory."""
    force, _ = _flags(arg)
    await _go_back(state, view, "1", force=force)


async def rewind_command(state: ReplState, view: ReplView, arg: str) -> None:
    """``/rewind [N] [--force]``: list the turns, then undo every turn back to the one picked."""
    force, choice = _flags(arg)
    if not choice:
        from hive_cli.checkpoints_command import checkpoint_lines

        lines = checkpoint_lines(state.cwd, limit=20)
        if not lines:
            view.print(Text("No checkpoints for this directory.", style="dim"))
            return
        for line in lines:
            view.print(Text(line))
        choice = await _ask("rewind to which (number, empty to cancel)? ")
        if not choice:
            return
    await _go_back(state, view, choice, force=force)


async def _go_back(state: ReplState, view: ReplView, choice: str, *, force: bool) -> None:
    from engine.checkpoints.undo import rewind
    from hive_cli.checkpoints_command import chosen_turns, describe, plan_lines, store_for

    store = store_for(state.cwd)
    try:
        if await _finish_interrupted(state, view, force=force):
            return
        if not chosen_turns(store, None):  # a damaged record next to undo raises here
            view.print(Text("Nothing to undo in this directory.", style="dim"))
            return
        chosen = chosen_turns(store, choice)
        for manifest in chosen:
            view.print(Text(f"Undo the turn of {describe(manifest, state.cwd)}:", style="bold"))
            for line in plan_lines(manifest, state.cwd):
                view.print(Text(line))
        if not await _confirm():
            view.print(Text("Nothing changed.", style="dim"))
            return
        reports = rewind(store, chosen[-1], force=force)
    except HiveError as error:
        view.print(Text(str(error), style="red"))
        return
    _show_reports(state, view, reports)


async def _finish_interrupted(state: ReplState, view: ReplView, *, force: bool) -> bool:
    """An undo killed half-way is finished first (after the same one-key question); False when there is none."""
    from engine.checkpoints.undo_resume import finish, interrupted
    from hive_cli.checkpoints_command import interruption_line, store_for

    store = store_for(state.cwd)
    found = interrupted(store)
    if found is None:
        return False
    view.print(Text(interruption_line(found, state.cwd), style="bold"))
    if not await _confirm():
        view.print(Text("Nothing changed.", style="dim"))
        return True
    _show_reports(state, view, finish(store, found, force=force))
    view.print(Text("The interrupted undo is finished; nothing else was undone.", style="dim"))
    return True


def _show_reports(state: ReplState, view: ReplView, reports: list[UndoReport]) -> None:
    from hive_cli.checkpoints_command import report_lines

    for line in report_lines(reports, state.cwd):
        view.print(Text(line, style="green"))
    if state.session is not None or state.resumed is not None:  # a conversation that saw the old files
        state.notes_for_model.append(undo_note(reports, state.cwd))


MAX_NOTED_PATHS = 20


def undo_note(reports: list[UndoReport], cwd: Path) -> str:
    """What the model is told with the next request: which files the person's undo put back."""
    back = sorted({_relative(p, cwd) for r in reports for p in [*r.restored, *r.removed]})
    kept = sorted({_relative(c.path, cwd) for r in reports for c in r.skipped})
    listed = ", ".join(back[:MAX_NOTED_PATHS]) + (
        f" and {len(back) - MAX_NOTED_PATHS} more" if len(back) > MAX_NOTED_PATHS else ""
    )
    note = f"[hive: the person undid {len(reports)} earlier turn(s) of yours with /undo: {listed or 'no file'} went back to how they were before those turns"
    if kept:
        note += f"; left as they are: {', '.join(kept[:MAX_NOTED_PATHS])}"
    return note + ". Read a file again before relying on what you saw of it.]"


def _relative(path: str, cwd: Path) -> str:
    return os.path.relpath(path, cwd) if Path(path).is_relative_to(cwd) else path


async def _confirm() -> bool:
    from hive_cli.repl.approver import answer_keys, ask_key

    keys = answer_keys({"y": "yes", "n": "no", "escape": "no", "c-c": "no"}, interrupt=False)
    question = HTML("  <ansimagenta><b>waiting for you</b></ansimagenta> · undo? <b>y</b> yes · <b>n</b> no ")
    return await ask_key(question, keys) == "yes"


def _flags(arg: str) -> tuple[bool, str]:
    words = arg.split()
    return "--force" in words, " ".join(w for w in words if w != "--force")


async def _ask(question: str) -> str:
    from prompt_toolkit import PromptSession

    return (await PromptSession[str]().prompt_async(question)).strip()
