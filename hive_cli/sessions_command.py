"""``hive sessions list``."""

from __future__ import annotations

import datetime
from pathlib import Path

import typer

from engine.paths import user_data_dir
from engine.sessions import SessionStore
from hive_cli.workdir import resolve_cwd


def list_sessions(cwd: Path | None, all_projects: bool) -> None:
    """Print this directory's sessions (or all of them), newest first."""
    store = SessionStore(user_data_dir() / "sessions")
    infos = store.list(None if all_projects else resolve_cwd(cwd))
    if not infos:
        typer.echo("No sessions yet.", err=True)
        return
    for info in infos:
        when = datetime.datetime.fromtimestamp(info.created).strftime("%Y-%m-%d %H:%M")
        where = f"  {info.cwd}" if all_projects else ""
        typer.echo(f"{info.id}  {when}  {info.model}  {info.title[:60]}{where}")
