"""``hive sessions``: the signatures only; the session machinery loads when a command runs."""

from __future__ import annotations

from pathlib import Path

import click

from hive_cli.cli_base import HiveGroup, exit_with
from hive_cli.cli_options import cwd_option, format_option
from hive_cli.errors import exit_on_error


@click.group("sessions", cls=HiveGroup, no_args_is_help=True)
def sessions_app() -> None:
    """Saved sessions: list, search, export, import and prune them."""


@sessions_app.command("list")
@cwd_option
@click.option("--all", "all_projects", is_flag=True, help="Sessions of every directory, not just this one.")
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="Show the latest N sessions (0: all of them).",
)
def sessions_list(cwd: Path | None, all_projects: bool, limit: int) -> None:
    """List saved sessions, newest first (the latest 20 unless --limit says otherwise)."""
    with exit_on_error(False):
        from hive_cli.sessions_command import list_sessions

        list_sessions(cwd, all_projects, limit or None)


@sessions_app.command("search")
@click.argument("text")
@format_option
def sessions_search(text: str, output_format: str) -> None:
    """Find TEXT (case ignored) in every saved session: which session, which message, the words around it.

    Exit status 0 when a session holds it, 1 when none does.
    """
    with exit_on_error(False):
        from hive_cli.sessions_command import search

        exit_with(search(text, output_format))


@sessions_app.command("export")
@click.argument("session_id", metavar="ID")
@click.option("--output", "-o", metavar="FILE", type=click.Path(path_type=Path), help="Write here, not to stdout.")
def sessions_export(session_id: str, output: Path | None) -> None:
    """Write the session ID to one file (stdout by default), for hive sessions import."""
    with exit_on_error(False):
        from hive_cli.sessions_command import export

        export(session_id, output)


@sessions_app.command("import")
@click.argument("file", type=click.Path(path_type=Path))
def sessions_import(file: Path) -> None:
    """Add the session exported to FILE (under its own id when free, else a new one: none is overwritten)."""
    with exit_on_error(False):
        from hive_cli.sessions_command import import_file

        import_file(file)


@sessions_app.command("prune")
@cwd_option
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
def sessions_prune(cwd: Path | None, dry_run: bool) -> None:
    """Remove the sessions over the caps of the settings' stores section (age, count, size) now; never one in use."""
    with exit_on_error(False):
        from hive_cli.prune_command import prune_sessions_now

        prune_sessions_now(cwd, dry_run=dry_run)
