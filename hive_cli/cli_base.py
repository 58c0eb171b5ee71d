"""The click pieces hive's commands are built from.

hive's command line is plain click: parsing one costs about a millisecond, where typer (which builds a
pydantic validator for every parameter) cost a quarter of a second on each ``hive run``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


class HiveGroup(click.Group):
    """A group of commands, listed in help in the order they were added (not sorted).

    A command added with :meth:`add_lazy_command` is imported only when it is run or its help is
    shown, so that ``hive run`` and the REPL do not load the modules of commands they never call.
    """

    group_class = type  # its subgroups are HiveGroups too

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.names: list[str] = list(self.commands)
        self.lazy: dict[str, str] = {}

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(cmd, name)
        added = name or cmd.name
        if added is not None and added not in self.names:
            self.names.append(added)

    def add_lazy_command(self, name: str, where: str) -> None:
        """Add the command ``where`` names (``module:attribute``) as ``name``, imported on first use."""
        self.lazy[name] = where
        self.names.append(name)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, _, attribute = self.lazy[cmd_name].partition(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.names)


def options(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """Several option decorators as one, shown in help in the order given."""

    def apply(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


def exit_with(status: int) -> NoReturn:
    """End the command with this exit status."""
    raise click.exceptions.Exit(status)
