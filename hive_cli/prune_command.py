"""``hive sessions prune`` and ``hive checkpoints prune``: the stores' caps applied now, whatever the daily stamp."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path

from engine.config.settings import SettingsFile, load_settings
from engine.paths import user_data_dir
from engine.stores.caps import Caps, Entry, Verdict
from hive_cli.terminal_text import echo
from hive_cli.workdir import resolve_cwd


def prune_sessions_now(cwd: Path | None, *, dry_run: bool) -> None:
    """Remove the sessions over the ``stores`` caps (never one in use); print what goes and what stays."""
    from engine.sessions.pruning import prune_sessions, session_caps

    settings = _settings(resolve_cwd(cwd))
    caps = session_caps(settings.stores)
    verdict = prune_sessions(user_data_dir() / "sessions", caps, dry_run=dry_run)
    _report("session", verdict, caps, dry_run=dry_run)
    if verdict.protected:
        shown = ", ".join(entry.name for entry in verdict.protected)
        echo(f"Kept though over a cap, being in use by a hive: {shown}")


def prune_checkpoints_now(cwd: Path | None, *, dry_run: bool) -> None:
    """Remove this project's turns over the ``checkpoints`` caps and the copies no kept turn uses; print both."""
    from engine.checkpoints.pruning import checkpoint_caps, prune_checkpoints
    from hive_cli.checkpoints_command import store_for

    where = resolve_cwd(cwd)
    caps = checkpoint_caps(_settings(where).checkpoints)
    verdict = prune_checkpoints(store_for(where), caps, dry_run=dry_run)
    _report("turn", verdict.turns, caps, dry_run=dry_run)
    blobs = len(verdict.blobs_removed)
    verb = "Would remove" if dry_run else "Removed"
    freed = _size(sum(blob.size for blob in verdict.blobs_removed))
    echo(f"{verb} {blobs} kept cop{'y' if blobs == 1 else 'ies'} of files no kept turn uses ({freed}).")
    echo(f"The store keeps {_size(verdict.kept_bytes)} (cap {_size(caps.max_bytes)}).")


def _settings(where: Path) -> SettingsFile:
    """The settings of ``where`` (an untrusted project's only where they tighten: its sessions caps are ignored)."""
    return load_settings(where).merged()


def _report(kind: str, verdict: Verdict, caps: Caps, *, dry_run: bool) -> None:
    verb = "Would remove" if dry_run else "Removed"
    end = ":" if verdict.removed else "."
    echo(f"{verb} {_count(len(verdict.removed), kind)} ({_size(verdict.freed)}){end}")
    for line in _rows(verdict.removed):
        echo(line)
    kept_bytes = sum(entry.size for entry in verdict.kept)
    echo(
        f"Kept {_count(len(verdict.kept), kind)} ({_size(kept_bytes)}); caps: {caps.keep_days} days, "
        f"{caps.max_count} {kind}s, {_size(caps.max_bytes)}."
    )


def _rows(entries: Iterable[Entry]) -> list[str]:
    return [f"  {entry.name}  {_when(entry.used)}  {_size(entry.size)}" for entry in entries]


def _when(moment: float) -> str:
    return datetime.datetime.fromtimestamp(moment).strftime("%Y-%m-%d %H:%M")


def _count(number: int, kind: str) -> str:
    return f"{number} {kind}{'' if number == 1 else 's'}"


def _size(size: int) -> str:
    if size < 1000:
        return f"{size} bytes"
    shown = float(size)
    for unit in ("KB", "MB", "GB"):
        shown /= 1000
        if shown < 1000 or unit == "GB":
            break
    return f"{shown:.1f} {unit}"
