"""``hive trust``: the signature only; the trust machinery loads when the command runs."""

from __future__ import annotations

from pathlib import Path

import click

from hive_cli.cli_options import cwd_option
from hive_cli.errors import exit_on_error


@click.command("trust")
@cwd_option
@click.option("--show", is_flag=True, help="Show the decision for this project and what its configuration changes.")
@click.option("--revoke", is_flag=True, help="Take the trust back: the project's configuration only tightens again.")
@click.option("--yes", "-y", is_flag=True, help="Trust without asking (for scripts); the list is still printed.")
def trust_command(cwd: Path | None, show: bool, revoke: bool, yes: bool) -> None:
    """Trust this project's own configuration (.ironhive/, .mcp.json): until then it may only tighten hive."""
    with exit_on_error(False):
        from hive_cli.trust_command import trust

        trust(cwd, show=show, revoke=revoke, yes=yes)
