"""The trust record: which projects the person trusted, and the digest of their configuration then.

One JSON file in the user's config folder (``trust.json``), which the sandbox hides from commands and
which only the person changes (``hive trust``, the REPL's question). Keyed by the project root's real
path, never by anything read from the project (a ``.git`` file or ``commondir`` could name another
project). Written atomically (a private temporary file, fsync, rename) under an exclusive lock, so two
hive processes deciding at once keep both decisions. A file that cannot be read or parsed trusts nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.disk_full import writing
from engine.paths import user_config_dir
from engine.private_files import locked

TRUST_FILE = "trust.json"
_LOCK_FILE = ".trust.lock"


class TrustRecord(Struct, frozen=True, kw_only=True):
    """One trusted project: its root, the digest of its configuration when trusted, and what was shown."""

    root: str
    digest: str
    decided: str
    """When the person decided (ISO 8601, UTC)."""
    loosenings: tuple[str, ...] = ()
    """What the project's configuration changes that an untrusted one could not, as the person was shown it."""


def trust_file() -> Path:
    """Where decisions are kept: ``trust.json`` in the user's hive config folder."""
    return user_config_dir() / TRUST_FILE


def record_for(root: Path) -> TrustRecord | None:
    """The record of the project at ``root`` (a resolved path), or None when it was never trusted."""
    entry = _read().get(str(root))
    if not isinstance(entry, dict):
        return None
    digest, decided, shown = entry.get("digest"), entry.get("decided", ""), entry.get("loosenings", [])
    if not isinstance(digest, str) or not isinstance(shown, list):
        return None
    return TrustRecord(root=str(root), digest=digest, decided=str(decided), loosenings=tuple(map(str, shown)))


def all_records() -> list[TrustRecord]:
    """Every trusted project, by root."""
    return [record for root in sorted(_read()) if (record := record_for(Path(root))) is not None]


def save_trust(root: Path, digest: str, loosenings: tuple[str, ...]) -> TrustRecord:
    """Record that the person trusts the project at ``root`` with its configuration as ``digest`` says."""
    decided = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    record = TrustRecord(root=str(root), digest=digest, decided=decided, loosenings=loosenings)
    with _writing("the project is still not trusted"), _locked():
        projects = _read()
        projects[str(root)] = {"digest": digest, "decided": decided, "loosenings": list(loosenings)}
        _write(projects)
    return record


def forget_trust(root: Path) -> bool:
    """Take back the trust of the project at ``root``; whether there was any."""
    with _writing("the project is still trusted"), _locked():
        projects = _read()
        if projects.pop(str(root), None) is None:
            return False
        _write(projects)
    return True


def _locked() -> contextlib.AbstractContextManager[None]:
    return locked(trust_file().parent, _LOCK_FILE)


def _writing(still: str) -> contextlib.AbstractContextManager[None]:
    """A full disk while the list is written: it is as it was (written atomically), and ``still`` says so."""
    return writing("the trust list", trust_file().parent, f"the list is as it was: {still}")


def _read() -> dict[str, Any]:
    try:
        with open(trust_file(), encoding="utf-8") as handle:
            data = json.loads(handle.read(4 * 1024 * 1024))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return dict(projects) if isinstance(projects, dict) else {}


def _write(projects: dict[str, Any]) -> None:
    path = trust_file()
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    text = json.dumps({"version": 1, "projects": projects}, indent=2, sort_keys=True) + "\n"
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
