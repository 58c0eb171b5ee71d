"""``hive undo`` and ``hive checkpoints list``: signatures only; the store is read when a command runs."""

from __future__ import annotations

from pathlib import Path

import click

from hive_cli.cli_base import HiveGroup
from hive_cli.cli_options import cwd_option, positive
from hive_cli.errors import exit_on_error


@click.group("checkpoints", cls=HiveGroup, no_args_is_help=True)
def checkpoints_app() -> None:
    """The snapshots hive keeps of the files each turn changed."""


@click.command("undo")
@cwd_option
@click.option("--yes", "-y", is_flag=True, help="Undo without asking first.")
@click.option(
    "--force", is_flag=True, help="Restore the other paths; one changed since hive touched it is left as it is."
)
@click.option("--to", metavar="N|ID", help="Undo every turn back to this one (see `hive checkpoints list`).")
def undo_command(cwd: Path | None, yes: bool, force: bool, to: str | None) -> None:
    """Revert the most recent turn that changed files here; refuses (exit 1) over files changed since; --force restores the others."""
    with exit_on_error(False):
        from hive_cli.checkpoints_command import undo

        undo(cwd, yes=yes, force=force, to=to)


@checkpoints_app.command("list")
@cwd_option
@click.option("--limit", type=int, default=20, show_default=True, callback=positive, help="Show the newest N turns.")
@click.option("--all", "show_all", is_flag=True, help="Show every turn kept.")
def checkpoints_list(cwd: Path | None, limit: int, show_all: bool) -> None:
    """List the turns that changed files here, the newest first, numbered as `hive undo --to` takes them."""
    with exit_on_error(False):
        from hive_cli.checkpoints_command import list_checkpoints

        list_checkpoints(cwd, None if show_all else limit)


@checkpoints_app.command("prune")
@cwd_option
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
def checkpoints_prune(cwd: Path | None, dry_run: bool) -> None:
    """Remove this project's turns over the checkpoints caps (age, count, size) now, and the copies no kept turn uses."""
    with exit_on_error(False):
        from hive_cli.prune_command import prune_checkpoints_now

        prune_checkpoints_now(cwd, dry_run=dry_run)
