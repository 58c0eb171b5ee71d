"""Custom slash commands at the prompt: completed by Tab, listed by /help, run by /name.

Tab lists the catalog kept while no commands folder changed (one stat per folder); /help checks every
file; /name runs what its file says now. None of it is done before the prompt is up: the catalog is
made in a thread once the REPL has loaded, and Tab completes in a thread too.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from engine.errors import HiveError
from hive_cli.repl.commands import BY_NAME

if TYPE_CHECKING:
    from rich.table import Table

    from engine.custom_commands import CommandCatalog, CustomCommand


def catalog(cwd: Path) -> CommandCatalog:
    """The custom commands of ``cwd`` now, every file checked (a built-in's name is never taken by a file)."""
    from engine.custom_commands import discover_commands

    return discover_commands(cwd, frozenset(BY_NAME))


def listed(cwd: Path) -> CommandCatalog:
    """The custom commands as last found, while no commands folder changed (an edit in place shows at /help)."""
    from engine.custom_commands import listed_commands

    return listed_commands(cwd, frozenset(BY_NAME))


def builtin_choices() -> list[tuple[str, str]]:
    """(name, help) of every built-in command, for Tab."""
    return [(c.name, c.help) for c in BY_NAME.values()]


def custom_choices(cwd: Path) -> list[tuple[str, str]]:
    """(name, help) of every custom command, for Tab."""
    return [(c.name, describe(c)) for c in listed(cwd).commands.values()]


def list_ahead(cwd: Path) -> None:
    """Find the custom commands in a thread, so that the first Tab, /help or /name finds them parsed."""

    def find() -> None:
        try:
            listed(cwd)
        except Exception:  # only a head start: the look that needs them says what is wrong
            return

    threading.Thread(target=find, name="hive-commands", daemon=True).start()


def find_command(line: str, cwd: Path) -> tuple[CustomCommand, str] | None:
    """The custom command a ``/name args`` line calls, as its file says now, with its arguments; None when none.

    A name the kept catalog lacks is looked for once more with every file checked (a broken file may
    have been mended in place). A command whose file can no longer be used raises ``HiveError``.
    """
    from engine.custom_commands import CommandFileError, current_command

    name, _, arguments = line.strip()[1:].partition(" ")
    if name in BY_NAME:
        return None
    command = listed(cwd).commands.get(name) or catalog(cwd).commands.get(name)
    if command is None:
        return None
    try:
        return current_command(command), arguments.strip()
    except CommandFileError as error:
        raise HiveError(str(error)) from None


def describe(command: CustomCommand) -> str:
    """One line for /help and Tab: the description, the arguments it takes, where it comes from."""
    hint = f" {command.argument_hint}" if command.argument_hint else ""
    summary = command.description or (command.body.splitlines()[0][:60] if command.body else "")
    return f"{summary}{hint} ({command.scope})"


def custom_help(cwd: Path) -> Table | None:
    """The custom commands, what they shadow and the files that could not be read; None when there are none."""
    from rich.table import Table

    found = catalog(cwd)
    if not (found.commands or found.shadowed or found.problems):
        return None
    table = Table.grid(padding=(0, 2))
    for command in found.commands.values():
        table.add_row(Text("/" + command.name, style="bold cyan"), describe(command))
    for hidden in found.shadowed:
        by = "a built-in command" if hidden.by is None else str(hidden.by)
        offered = f"; offered as /{hidden.offered_as}" if hidden.offered_as else ""
        table.add_row(
            Text("/" + hidden.name, style="dim"), Text(f"{hidden.hidden} is shadowed by {by}{offered}", style="dim")
        )
    for problem in found.problems:
        table.add_row(Text("!", style="yellow"), Text(problem, style="yellow"))
    return table
