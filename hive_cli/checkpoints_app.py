"""``hive undo`` and ``hive checkpoints list``: signatures only; the store is read when a command runs."""

from __future__ import annotations

from typing import Annotated

import typer

from hive_cli.cli_options import CwdOpt
from hive_cli.errors import exit_on_error

checkpoints_app = typer.Typer(help="The snapshots hive keeps of the files each turn changed.", no_args_is_help=True)


def undo_command(
    cwd: CwdOpt = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Undo without asking first.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Undo even over files changed since hive touched them.")
    ] = False,
    to: Annotated[
        str | None,
        typer.Option("--to", metavar="N|ID", help="Undo every turn back to this one (see `hive checkpoints list`)."),
    ] = None,
) -> None:
    """Revert the most recent turn that changed files here; refuses (exit 1) over files changed since, unless --force."""
    with exit_on_error(False):
        from hive_cli.checkpoints_command import undo

        undo(cwd, yes=yes, force=force, to=to)


@checkpoints_app.command("list")
def checkpoints_list(cwd: CwdOpt = None) -> None:
    """List the turns that changed files here, the newest first, numbered as `hive undo --to` takes them."""
    with exit_on_error(False):
        from hive_cli.checkpoints_command import list_checkpoints

        list_checkpoints(cwd)
