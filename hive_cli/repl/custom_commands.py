"""Custom slash commands at the prompt: found afresh for each use, completed by Tab, listed by /help."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from hive_cli.repl.commands import BY_NAME

if TYPE_CHECKING:
    from rich.table import Table

    from engine.custom_commands import CommandCatalog, CustomCommand


def catalog(cwd: Path) -> CommandCatalog:
    """The custom commands of ``cwd`` now (a built-in's name is never taken by a file)."""
    from engine.custom_commands import discover_commands

    return discover_commands(cwd, frozenset(BY_NAME))


def command_choices(cwd: Path) -> list[tuple[str, str]]:
    """(name, help) of every command for Tab: the built-ins, then the custom ones."""
    builtin = [(c.name, c.help) for c in BY_NAME.values()]
    return builtin + [(c.name, describe(c)) for c in catalog(cwd).commands.values()]


def find_command(line: str, cwd: Path) -> tuple[CustomCommand, str] | None:
    """The custom command a ``/name args`` line calls, with its arguments; None when there is none."""
    name, _, arguments = line.strip()[1:].partition(" ")
    if name in BY_NAME:
        return None
    command = catalog(cwd).commands.get(name)
    return None if command is None else (command, arguments.strip())


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
