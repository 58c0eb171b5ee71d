"""``hive sessions list``."""

from __future__ import annotations

import datetime
from pathlib import Path

from engine.paths import user_data_dir
from engine.session_store import SessionInfo, SessionStore
from hive_cli.terminal_text import echo, visible
from hive_cli.workdir import resolve_cwd

DAMAGED_MARK = "[damaged: its first line is unreadable]"


def list_sessions(cwd: Path | None, all_projects: bool) -> None:
    """Print this directory's sessions (or all of them), the one used last first; damaged ones marked."""
    store = SessionStore(user_data_dir() / "sessions")
    listing = store.scan(None if all_projects else resolve_cwd(cwd))
    if listing.skipped:
        names = ", ".join(str(path) for path in listing.skipped[:5]) + (" ..." if len(listing.skipped) > 5 else "")
        echo(f"hive: skipped {len(listing.skipped)} unreadable session file(s): {names}", err=True)
    if listing.unplaced:
        ids = ", ".join(info.id for info in listing.unplaced)
        said = f"hive: session(s) {ids} have a damaged first line, so their project is unknown"
        echo(f"{said}: hive sessions list --all shows them, hive run --resume ID continues one", err=True)
    if not listing.sessions:
        echo("No sessions yet.", err=True)
        return
    for info in listing.sessions:
        echo(_row(info, all_projects))


def _row(info: SessionInfo, all_projects: bool) -> str:
    when = datetime.datetime.fromtimestamp(info.updated or info.created).strftime("%Y-%m-%d %H:%M")
    if info.damaged_header:
        return f"{info.id}  {when}  {DAMAGED_MARK}"
    where = f"  {info.cwd}" if all_projects else ""
    return f"{info.id}  {when}  {info.model}  {visible(info.title[:60])}{where}"
