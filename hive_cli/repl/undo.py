"""The REPL's ``/undo`` and ``/rewind``: revert the last turn that changed files, or every turn back to one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from engine.errors import HiveError

if TYPE_CHECKING:
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

        lines = checkpoint_lines(state.cwd)
        if not lines:
            view.print(Text("No checkpoints for this directory.", style="dim"))
            return
        for line in lines[:20]:
            view.print(Text(line))
        choice = await _ask("rewind to which (number, empty to cancel)? ")
        if not choice:
            return
    await _go_back(state, view, choice, force=force)


async def _go_back(state: ReplState, view: ReplView, choice: str, *, force: bool) -> None:
    from engine.checkpoints.undo import pending, rewind
    from hive_cli.checkpoints_command import describe, pick, plan_lines, report_lines, store_for

    store = store_for(state.cwd)
    turns = pending(store)
    if not turns:
        view.print(Text("Nothing to undo in this directory.", style="dim"))
        return
    try:
        target = pick(turns, choice)
        for manifest in turns[: turns.index(target) + 1]:
            view.print(Text(f"Undo the turn of {describe(manifest, state.cwd)}:", style="bold"))
            for line in plan_lines(manifest, state.cwd):
                view.print(Text(line))
        if (await _ask("undo? [y/N] ")).lower() not in ("y", "yes"):
            view.print(Text("Nothing changed.", style="dim"))
            return
        reports = rewind(store, target, force=force)
    except HiveError as error:
        view.print(Text(str(error), style="red"))
        return
    for line in report_lines(reports, state.cwd):
        view.print(Text(line, style="green"))


def _flags(arg: str) -> tuple[bool, str]:
    words = arg.split()
    return "--force" in words, " ".join(w for w in words if w != "--force")


async def _ask(question: str) -> str:
    from prompt_toolkit import PromptSession

    return (await PromptSession[str]().prompt_async(question)).strip()
