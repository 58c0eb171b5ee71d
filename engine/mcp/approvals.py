"""The project servers the user approved: a repository's own files must not start programs unasked.

A server defined by the project's files (``.mcp.json``, ``.ironhive/plugins.yaml``) came with the
repository, and a stdio server runs outside the sandbox with the user's access. So it starts only
once the user approved it as it is now: an approval records what the server runs or reaches (command,
arguments, environment, working folder, URL, headers), and any change to that asks again; timeouts
and tool filters may change freely. Servers in the user's own
``plugins.yaml`` need none. Approvals are kept in the user's config folder, which the sandbox hides
from commands; an unreadable file approves nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.paths import user_config_dir

if TYPE_CHECKING:
    from engine.mcp.config import ServerConfig

APPROVALS_FILE = "mcp-approvals.json"


def approvals_file() -> Path:
    """Where approvals are kept: ``mcp-approvals.json`` in the user's hive config folder."""
    return user_config_dir() / APPROVALS_FILE


def approved(root: Path) -> dict[str, str]:
    """Server name -> approved fingerprint, for the project at ``root``; empty when none or the file is unreadable."""
    projects = _read(approvals_file())
    entries = projects.get(str(root), {})
    return {name: value for name, value in entries.items() if isinstance(value, str)}


def is_approved(server: ServerConfig, approvals: dict[str, str]) -> bool:
    """True when ``approvals`` (from :func:`approved`) holds ``server`` as it is now."""
    return approvals.get(server.name) == server.launch_fingerprint


def unapproved_problem(server: ServerConfig) -> str:
    """Why ``server`` is not started: it is the project's and not approved as it is now."""
    return (
        f"{server.source.name} is the project's own file, and you have not approved this server as it is now;"
        f" to start it, run: hive mcp approve {server.name}"
    )


def approve(root: Path, servers: Iterable[ServerConfig]) -> None:
    """Record ``servers`` as approved, as configured now, for the project at ``root`` (written atomically)."""
    projects = _read(approvals_file())
    entries = projects.setdefault(str(root), {})
    for server in servers:
        entries[server.name] = server.launch_fingerprint
    _write(projects)


def revoke(root: Path, names: Iterable[str] | None = None) -> list[str]:
    """Forget the approvals of ``names`` (every one when None) for the project at ``root``; the names forgotten."""
    projects = _read(approvals_file())
    entries = projects.get(str(root), {})
    wanted = None if names is None else set(names)
    gone = [name for name in entries if wanted is None or name in wanted]
    for name in gone:
        del entries[name]
    if not entries:
        projects.pop(str(root), None)
    if gone:
        _write(projects)
    return gone


def _write(projects: dict[str, dict[str, str]]) -> None:
    path = approvals_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(json.dumps({"projects": projects}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _read(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {root: entries for root, entries in projects.items() if isinstance(entries, dict)}
