"""The click pieces hive's commands are built from.

hive's command line is plain click: parsing one costs about a millisecond, where typer (which builds a
pydantic validator for every parameter) cost a quarter of a second on each ``hive run``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


class HiveGroup(click.Group):
    """A group of commands, listed in help in the order they were added (not sorted)."""

    group_class = type  # its subgroups are HiveGroups too

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


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
