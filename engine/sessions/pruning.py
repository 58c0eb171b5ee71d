"""Keeping the sessions folder small: sessions over the age, count or size cap go, the least recently used first.

Known by name and ``stat`` alone (no session file is read); a session in use (its lock held by this
process or another: written, resumed, shown in a REPL) or named in ``keep`` is never removed. Each
removal holds the session's lock while the file goes, so a process that opens it meanwhile is
refused rather than left writing a removed file; the sessions index is compacted after (the removed
sessions' lines go). At a session's start this runs at most once a day (:func:`prune_sessions_daily`);
``hive sessions prune`` runs it now.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Collection
from pathlib import Path

from engine.session_lock import SessionBusy, hold, in_use, release
from engine.session_store import SESSION_ID
from engine.sessions.index import compact
from engine.stores.caps import Caps, Entry, Verdict, choose
from engine.stores.options import StoresOptions
from engine.stores.stamp import claim_daily

SUFFIX = ".jsonl"


def session_caps(options: StoresOptions) -> Caps:
    """The sessions' caps of the ``stores`` settings."""
    return Caps(
        keep_days=options.sessions_keep_days,
        max_count=options.sessions_max_count,
        max_bytes=options.sessions_max_bytes,
    )


def session_entries(root: Path) -> list[Entry]:
    """Every session file of ``root``: its id, when it was last written, its size (from ``stat``)."""
    entries = []
    with contextlib.suppress(FileNotFoundError, NotADirectoryError), os.scandir(root) as found:
        for item in found:
            session_id = item.name.removesuffix(SUFFIX)
            if not item.name.endswith(SUFFIX) or not SESSION_ID.fullmatch(session_id):
                continue
            with contextlib.suppress(OSError):
                info = item.stat(follow_symlinks=False)
                entries.append(Entry(name=session_id, used=info.st_mtime, size=info.st_size))
    return entries


def prune_sessions(
    root: Path, caps: Caps, *, keep: Collection[str] = (), dry_run: bool = False, now: float | None = None
) -> Verdict:
    """Remove the sessions over ``caps`` (none with ``dry_run``); what was (or would be) removed and kept."""
    moment = time.time() if now is None else now

    def protected(entry: Entry) -> bool:
        return entry.name in keep or in_use(root / f"{entry.name}{SUFFIX}")

    verdict = choose(session_entries(root), caps, moment, protected)
    if dry_run:
        return verdict
    busy = [entry for entry in verdict.removed if not _remove(root / f"{entry.name}{SUFFIX}")]
    if len(busy) < len(verdict.removed):
        with contextlib.suppress(OSError):  # housekeeping: the index is compacted again when it grows
            compact(root)
    if not busy:
        return verdict
    removed = tuple(entry for entry in verdict.removed if entry not in busy)
    kept = tuple(sorted((*verdict.kept, *busy), key=lambda entry: (entry.used, entry.name)))
    return Verdict(removed=removed, kept=kept, protected=(*verdict.protected, *busy))


def prune_sessions_daily(root: Path, options: StoresOptions, *, keep: Collection[str] = ()) -> Verdict | None:
    """:func:`prune_sessions` when the sessions were not pruned in the last day; None when they were."""
    if not claim_daily("sessions"):
        return None
    try:
        return prune_sessions(root, session_caps(options), keep=keep)
    except OSError:
        return None  # housekeeping: a folder that cannot be pruned now is pruned another day


def _remove(session_file: Path) -> bool:
    """Remove one session file, holding its lock meanwhile; False when another process holds it."""
    try:
        hold(session_file)
    except (SessionBusy, OSError):
        return False
    try:
        session_file.unlink(missing_ok=True)
    finally:
        release(session_file)
    return True
