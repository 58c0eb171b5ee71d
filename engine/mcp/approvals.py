"""The project servers the user approved: a repository's own files must not start programs unasked.

A server defined by the project's files (``.mcp.json``, ``.ironhive/plugins.yaml``) came with the
repository, and a stdio server runs outside the sandbox with the user's access. So it starts only
once the user approved it as it is now. An approval records the entry as written (command,
arguments, environment, working folder, URL, headers: ``${VAR}`` templates, not their values) and
the content of the project files it runs or reads as it starts (:mod:`engine.launch_files`): a
changed entry or script asks again; a rotated token, a timeout or a tool filter does not. It also
records the variables of the person's environment they allowed the server to have
(``hive mcp approve NAME --env VAR``): in a project that is not trusted, no other is passed to it
(:mod:`engine.mcp.project_entry`). What a person is shown about such a server is the entry as
written, the variables it uses (and whether each is passed) and the files it runs, never a
variable's value. Servers in the user's own ``plugins.yaml`` need no approval.
Approvals are kept in the user's config folder, which the sandbox hides from commands; an
unreadable file approves nothing.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from engine.disk_full import writing
from engine.launch_files import short_digest
from engine.paths import user_config_dir
from engine.private_files import locked, open_private, private_dir

if TYPE_CHECKING:
    from engine.mcp.config import ServerConfig

APPROVALS_FILE = "mcp-approvals.json"
_LOCK_FILE = ".mcp-approvals.lock"


class Approval(Struct, frozen=True):
    """One recorded approval: the fingerprint approved and the launch files as they were then."""

    fingerprint: str
    files: Mapping[str, str] | None = None
    """Path -> digest; None for an approval an earlier hive recorded (it covered the command line as text only)."""
    env: tuple[str, ...] = ()
    """The variables of the person's environment they allowed the server to have (names, sorted)."""


def approvals_file() -> Path:
    """Where approvals are kept: ``mcp-approvals.json`` in the user's hive config folder."""
    return user_config_dir() / APPROVALS_FILE


def approved(root: Path) -> dict[str, Approval]:
    """Server name -> its approval, for the project at ``root``; empty when none or the file is unreadable."""
    entries = _read(approvals_file()).get(str(root), {})
    return {name: approval for name, value in entries.items() if (approval := _approval(value)) is not None}


def is_approved(server: ServerConfig, approvals: Mapping[str, Approval]) -> bool:
    """True when ``approvals`` (from :func:`approved`) holds ``server`` as it is now."""
    approval = approvals.get(server.name)
    return approval is not None and approval.files is not None and approval.fingerprint == server.launch_fingerprint


def unapproved_problem(server: ServerConfig, approval: Approval | None = None) -> str:
    """Why ``server`` is not started: it is the project's and not approved as it is now (``approval``: the old one)."""
    why = what_changed(server, approval) or "you have not approved this server as it is now"
    return (
        f"{server.source.name} is the project's own file, and {why};"
        f" to see what it runs now and start it, run: hive mcp approve {server.name}"
    )


def what_changed(server: ServerConfig, approval: Approval | None) -> str | None:
    """Why a server approved before (``approval``) is asked about again; None when it never was approved."""
    if approval is None:
        return None
    if approval.files is None:
        return "your approval of it was recorded in an older format that did not pin the files it runs"
    changed = changed_files(server, approval)
    if changed:
        return f"{', '.join(changed)} changed since you approved it"
    return "its entry changed since you approved it"


def changed_files(server: ServerConfig, approval: Approval) -> list[str]:
    """The launch files of ``server`` that are new, gone or different since ``approval``."""
    now = {named.path: named.digest for named in server.launch_files}
    before = dict(approval.files or {})
    return sorted(path for path in now.keys() | before.keys() if now.get(path) != before.get(path))


def approve(root: Path, servers: Iterable[ServerConfig], allow: Mapping[str, Iterable[str]] | None = None) -> None:
    """Record ``servers`` as approved, as configured now, for the project at ``root`` (written atomically).

    ``allow``: server name -> variables to add to those it may have; the ones allowed before are kept.
    """
    servers = list(servers)
    names = ", ".join(server.name for server in servers)
    with _writing(f"{names} not approved"), _locked():
        projects = _read(approvals_file())
        entries = projects.setdefault(str(root), {})
        for server in servers:
            files = {named.path: named.digest for named in server.launch_files}
            before = _approval(entries.get(server.name))
            env = {*(before.env if before else ()), *(allow or {}).get(server.name, ())}
            entries[server.name] = {"fingerprint": server.launch_fingerprint, "files": files, "env": sorted(env)}
        _write(projects)


def revoke(root: Path, names: Iterable[str] | None = None) -> list[str]:
    """Forget the approvals of ``names`` (every one when None) for the project at ``root``; the names forgotten."""
    with _writing("every approval is still in force"), _locked():
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


def shown_command(server: ServerConfig) -> str:
    """What the server runs or where it connects, as written (``${VAR}`` templates, never their values)."""
    written = server.as_written
    if server.transport == "stdio":
        return shlex.join([written.command or "", *written.args])
    return f"{server.transport} {written.url}"


def shown_details(server: ServerConfig) -> list[str]:
    """What else a person approving ``server`` should see: names of its variables and headers, its pinned files."""
    written = server.as_written
    lines = []
    if written.cwd is not None:
        lines.append(f"working folder: {written.cwd}")
    if written.env:
        lines.append(f"environment: {', '.join(sorted(written.env))}")
    if written.headers:
        lines.append(f"headers: {', '.join(sorted(written.headers))}")
    passed = [name for name in written.variables if name not in server.withheld]
    if passed:
        lines.append(f"uses {', '.join(f'${name}' for name in passed)} from your environment")
    if server.withheld:
        wanted = ", ".join(f"${name}" for name in server.withheld)
        options = " ".join(f"--env {name}" for name in server.withheld)
        lines.append(
            f"wants {wanted} from your environment, not passed: allow with hive mcp approve {server.name} {options}"
        )
    if server.launch_files:
        shown = ", ".join(f"{named.path} ({short_digest(named.digest)})" for named in server.launch_files)
        lines.append(f"runs or reads: {shown}")
    unpinned = [named.path for named in server.launch_files if not named.pinned]
    if unpinned:
        lines.append(f"not pinned, so a change to them will not ask again: {', '.join(unpinned)}")
    return lines


def _approval(value: Any) -> Approval | None:
    if isinstance(value, str):  # an earlier hive's approval: the fingerprint alone
        return Approval(fingerprint=value)
    if not isinstance(value, dict) or not isinstance(value.get("fingerprint"), str):
        return None
    files = value.get("files")
    if not isinstance(files, dict):
        return None
    env = value.get("env")
    return Approval(
        fingerprint=value["fingerprint"],
        files={str(path): digest for path, digest in files.items() if isinstance(digest, str)},
        env=tuple(sorted(str(name) for name in env)) if isinstance(env, list) else (),
    )


def _locked() -> AbstractContextManager[None]:
    return locked(approvals_file().parent, _LOCK_FILE)


def _writing(still: str) -> AbstractContextManager[None]:
    """A full disk while the approvals are written: they are as they were (written atomically); ``still`` says how."""
    return writing("the MCP approvals", approvals_file().parent, f"they are as they were: {still}")


def _write(projects: dict[str, dict[str, Any]]) -> None:
    path = approvals_file()
    private_dir(path.parent)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open_private(partial, "w") as handle:
            handle.write(json.dumps({"projects": projects}, indent=2, sort_keys=True) + "\n")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _read(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {root: entries for root, entries in projects.items() if isinstance(entries, dict)}
