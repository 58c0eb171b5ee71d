"""``hive sessions list``, ``search``, ``export`` and ``import``."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import UserError
from engine.paths import user_data_dir
from engine.session_store import SessionInfo, SessionStore
from hive_cli.terminal_text import echo, echo_json, visible
from hive_cli.workdir import resolve_cwd

if TYPE_CHECKING:
    from engine.sessions.search import SearchResult

DAMAGED_MARK = "[damaged: its first line is unreadable]"
NOT_FOUND = 1
"""The exit status of a search no session matched (as grep's)."""


def _store() -> SessionStore:
    return SessionStore(user_data_dir() / "sessions")


def list_sessions(cwd: Path | None, all_projects: bool, limit: int | None = None) -> None:
    """Print this directory's sessions (or every directory's), the one used last first, at most ``limit``;
    damaged ones marked."""
    listing = _store().scan(None if all_projects else resolve_cwd(cwd), limit)
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
    if listing.more:
        echo(f"hive: the latest {len(listing.sessions)} shown; --limit N shows more, --limit 0 all", err=True)


def _row(info: SessionInfo, all_projects: bool) -> str:
    when = datetime.datetime.fromtimestamp(info.updated or info.created).strftime("%Y-%m-%d %H:%M")
    if info.damaged_header:
        return f"{info.id}  {when}  {DAMAGED_MARK}"
    where = f"  {info.cwd}" if all_projects else ""
    parent = f"  (fork of {info.parent})" if info.parent else ""
    return f"{info.id}  {when}  {info.model}  {visible(info.title[:60])}{where}{parent}"


def search(text: str, output_format: str) -> int:
    """Print the sessions holding ``text`` and where; the exit status (``NOT_FOUND`` when none does)."""
    from engine.sessions.search import search_sessions

    if not text.strip():
        raise UserError("hive sessions search: give a text to search for")
    result = search_sessions(_store(), text)
    for skipped in result.skipped:
        echo(f"hive: not searched: {skipped}", err=True)
    if output_format == "json":
        echo_json(json.dumps(_search_json(text, result), ensure_ascii=False))
    else:
        for found in result.sessions:
            echo(_row(found.session, all_projects=True))
            for hit in found.hits:
                echo(f"  {hit.role}, line {hit.line}: {visible(hit.snippet)}")
            if found.more:
                echo("  (and more)")
        echo(f"{len(result.sessions)} of {result.searched} session(s) hold {visible(text)!r}", err=True)
    return 0 if result.sessions else NOT_FOUND


def _search_json(text: str, result: SearchResult) -> dict[str, object]:
    sessions = [
        {
            "id": found.session.id,
            "cwd": found.session.cwd,
            "model": found.session.model,
            "title": found.session.title,
            "updated": found.session.updated,
            "parent": found.session.parent or None,
            "hits": [{"line": hit.line, "role": hit.role, "snippet": hit.snippet} for hit in found.hits],
            "more": found.more,
        }
        for found in result.sessions
    ]
    return {"text": text, "searched": result.searched, "sessions": sessions, "skipped": list(result.skipped)}


def export(session_id: str, output: Path | None) -> None:
    """Write the single-file export of ``session_id`` to ``output`` (stdout when None)."""
    from engine.sessions.copies import export_session
    from engine.sessions.placing import write_whole

    if output is None and sys.stdout.isatty():
        raise UserError("hive sessions export: stdout is a terminal: give -o FILE, or pipe it into a file")
    data = export_session(_store(), session_id)
    if output is None:
        _write_export(data)
        return
    try:
        write_whole(output, data)
    except OSError as error:
        raise UserError(f"cannot write {output}: {error.strerror or error}") from error
    echo(f"Exported session {session_id} to {output}", err=True)


def _write_export(data: bytes) -> None:
    """The export's exact bytes to stdout, which is a pipe or a file (a terminal was refused)."""
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def import_file(path: Path) -> None:
    """Add the session exported to ``path``; say its id (and that it is new when the exported one was taken)."""
    from engine.sessions.copies import default_scrub, import_session

    imported = import_session(_store(), path, default_scrub())
    if imported.info.id != imported.exported_id:
        echo(f"hive: a session {imported.exported_id} exists already: imported as a new session", err=True)
    echo(imported.info.id)
    echo(f"Imported; hive run --resume {imported.info.id} continues it", err=True)
