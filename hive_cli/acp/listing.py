"""``session/list``: hive's saved sessions as the editor lists them (the one used last first), a page at a time."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from acp.schema import ListSessionsResponse, SessionInfo

from engine.paths import user_data_dir
from engine.session_store import SessionStore

PAGE = 50


def list_sessions(cwd: str | None, cursor: str | None) -> ListSessionsResponse:
    """The sessions started in ``cwd`` (every one without it), ``PAGE`` at a time from ``cursor`` (an offset).

    Only the sessions up to the page's end and one more are read (through the sessions index).
    """
    start = int(cursor) if cursor and cursor.isdigit() else 0
    found = SessionStore(user_data_dir() / "sessions").list(Path(cwd) if cwd else None, limit=start + PAGE + 1)
    page = found[start : start + PAGE]
    sessions = [
        SessionInfo(
            session_id=info.id,
            cwd=info.cwd,
            title=info.title or None,
            updated_at=datetime.fromtimestamp(info.updated or info.created, UTC).isoformat(),
        )
        for info in page
    ]
    more = start + PAGE < len(found)
    return ListSessionsResponse(sessions=sessions, next_cursor=str(start + PAGE) if more else None)
