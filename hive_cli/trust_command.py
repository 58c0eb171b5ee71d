"""``hive trust [--show | --revoke]``: see what a project's configuration would change, and decide."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from engine.errors import UserError
from engine.trust.review import TrustReview, review, trust_project
from engine.trust.store import forget_trust, record_for
from engine.workspace import Workspace, open_workspace
from hive_cli.terminal_text import echo, visible
from hive_cli.workdir import resolve_cwd


def trust(cwd: Path | None, *, show: bool, revoke: bool, yes: bool) -> None:
    """Show, take back or give the trust of the project at ``cwd`` (see the command's help)."""
    if show and revoke:
        raise UserError("--show and --revoke cannot be used together")
    workspace = open_workspace(resolve_cwd(cwd))
    if revoke:
        _revoke(workspace)
    elif show:
        _show(workspace)
    else:
        _trust(workspace, yes=yes)


def _revoke(workspace: Workspace) -> None:
    if forget_trust(workspace.root):
        echo(f"{workspace.root}: no longer trusted; its configuration only tightens hive from now on.")
    else:
        echo(f"{workspace.root}: was not trusted; nothing to take back.")


def _show(workspace: Workspace) -> None:
    record = record_for(workspace.root)
    echo(f"project: {workspace.root}")
    if record is None:
        echo("decision: not trusted")
    else:
        state = "its configuration changed since" if workspace.changed else "unchanged since"
        echo(f"decision: trusted on {record.decided} ({state})")
    _list(review(workspace))


def _trust(workspace: Workspace, *, yes: bool) -> None:
    checked = review(workspace)
    echo(f"project: {workspace.root}")
    if not checked.items:
        echo("Its configuration only tightens what hive does (or it has none): there is nothing to trust.")
        return
    if workspace.trust == "trusted":
        echo("Already trusted, as its configuration is now. It changes:")
        _list(checked, header=False)
        return
    _list(checked)
    if not yes and not _confirmed():
        raise click.exceptions.Exit(1)
    trust_project(checked)
    echo("Trusted. Any change to these files asks again; `hive trust --revoke` takes it back.")


def _list(checked: TrustReview, *, header: bool = True) -> None:
    if not checked.items:
        echo("Its configuration only tightens what hive does: nothing to trust.")
        return
    if header:
        echo("Trusting it lets its configuration:")
    for item in checked.items:
        echo(f"  - {visible(item)}")


def _confirmed() -> bool:
    if not sys.stdin.isatty():
        raise UserError("not a terminal, so nobody can answer; run `hive trust` at a terminal, or `hive trust --yes`")
    return click.confirm("Trust this project?", default=False, err=True)
