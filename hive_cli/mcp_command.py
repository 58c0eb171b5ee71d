"""``hive mcp add``, ``remove``, ``approve`` and ``revoke``: edit the servers in a ``plugins.yaml``, approve the project's."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from engine.errors import UserError
from engine.mcp.approvals import Approval, approved, shown_command, shown_details, what_changed
from engine.mcp.approvals import approve as record_approvals
from engine.mcp.approvals import revoke as forget_approvals
from engine.mcp.config import MCP_JSON, ServerConfig, find_plugins_file
from engine.mcp.edit import NewServer, add_server, remove_server
from engine.mcp.entries import Transport
from engine.paths import project_dir, project_root, user_config_dir
from engine.trust.review import keep_trust
from engine.workspace import open_workspace
from hive_cli.terminal_text import echo

_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_KEY = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
SCOPES = ("project", "user")


def plugins_path(cwd: Path, scope: str) -> Path:
    """The ``plugins.yaml`` of ``scope``: the project's ``.ironhive/`` or the user's config dir (the file may not exist)."""
    folder = project_dir(cwd) if scope == "project" else user_config_dir()
    return find_plugins_file(folder) or folder / "plugins.yaml"


def pairs(values: Sequence[str], what: str, key_pattern: re.Pattern[str]) -> dict[str, str]:
    """``K=V`` options as a mapping; a malformed one is a ``UserError``."""
    result: dict[str, str] = {}
    for value in values:
        key, sep, text = value.partition("=")
        if what == "--header" and not key_pattern.match(key.strip()):
            key, sep, text = value.partition(":")  # the Name: value form
            text = text.strip()
        key = key.strip()
        if not sep or not key_pattern.match(key):
            raise UserError(f"{what} {value!r}: give it as KEY=VALUE")
        result[key] = text
    return result


def new_server(
    name: str, target: Sequence[str], transport: Transport | None, env: Sequence[str], headers: Sequence[str]
) -> NewServer:
    """The entry ``hive mcp add`` writes; a lone http(s) URL without ``--transport`` means ``http``."""
    if not target:
        raise UserError("give the server's command after -- (hive mcp add NAME -- COMMAND ARGS...) or its URL")
    if transport is None:
        transport = "http" if len(target) == 1 and re.match(r"^https?://", target[0]) else "stdio"
    env_map, header_map = pairs(env, "--env", _ENV_KEY), pairs(headers, "--header", _HEADER_KEY)
    if transport == "stdio":
        if header_map:
            raise UserError("--header is for http and sse servers; this one is stdio")
        if re.match(r"^https?://", target[0]):
            raise UserError(
                f"a stdio server runs a command, and {target[0]!r} is a URL (for a server at a URL: --transport http or sse)"
            )
        return NewServer(name=name, transport=transport, command=target[0], args=tuple(target[1:]), env=env_map)
    if len(target) != 1:
        raise UserError(f"an {transport} server takes one URL, not a command ({' '.join(target)})")
    if env_map:
        raise UserError(f"--env is for stdio servers; this one is {transport} (use --header)")
    if not re.match(r"^https?://\S+$", target[0]):
        raise UserError(f"{target[0]!r} is not a URL (an {transport} server needs http://... or https://...)")
    return NewServer(name=name, transport=transport, url=target[0], headers=header_map)


def add(cwd: Path, server: NewServer, scope: str, force: bool) -> None:
    """Write ``server`` into the ``scope``'s plugins.yaml and say where."""
    path = plugins_path(cwd, scope)
    before = open_workspace(cwd) if scope == "project" else None
    replaced = add_server(path, server, force=force)
    where = server.url or " ".join([server.command or "", *server.args]).strip()
    echo(f"{'Replaced' if replaced else 'Added'} MCP server {server.name} ({server.transport}: {where}) in {path}")
    if scope == "project":  # the person typed it: approved as written
        from hive_cli.mcp_inspect import configured

        added = [s for s in configured(cwd).servers if s.name == server.name and s.awaiting_approval]
        record_approvals(project_root(cwd), added)
        if before is not None:
            keep_trust(before)


def approve(cwd: Path, names: Sequence[str], every: bool, env: Sequence[str] = ()) -> list[str]:
    """Approve the project's servers ``names`` (or ``every`` one waiting) as configured now; with neither, list them.

    ``env``: variables of the person's environment the named servers may have (kept with the approval).
    Returns what to tell the person, a line each; an unknown name is a ``UserError``. What is shown of a
    server is its entry as written (variable names, never their values) and the files it runs.
    """
    from hive_cli.mcp_inspect import configured

    servers = configured(cwd).servers
    waiting = {s.name: s for s in servers if s.awaiting_approval}
    unknown = [name for name in names if name not in {s.name for s in servers}]
    if unknown:
        raise UserError(f"no MCP server named {unknown[0]!r} here (hive mcp list shows them)")
    if env and not names:
        raise UserError("name the servers that may have --env variables (hive mcp approve NAME --env VAR)")
    if not names and not every:
        return _waiting_lines(list(waiting.values()), approved(project_root(cwd)))
    given = [s for s in servers if s.name in names and env]
    _check_allowed(given, env)
    chosen = list(waiting.values()) if every else [waiting[name] for name in names if name in waiting]
    chosen += [server for server in given if server.name not in waiting]
    record_approvals(project_root(cwd), chosen, {server.name: env for server in given})
    now = {s.name: s for s in configured(cwd).servers}
    lines = []
    for server in (now.get(server.name, server) for server in chosen):
        lines.append(f"Approved MCP server {server.name}: {describe(server)} (from {server.source})")
        lines += [f"  {detail}" for detail in shown_details(server)]
    lines += [
        f"MCP server {name}: nothing to approve (it is the user's own, or already approved as it is)"
        for name in names
        if name not in waiting and not env
    ]
    return lines


def _check_allowed(servers: Sequence[ServerConfig], env: Sequence[str]) -> None:
    """A ``UserError`` unless each of ``servers`` is the project's and uses every variable of ``env``."""
    for server in servers:
        if not server.from_project:
            raise UserError(f"MCP server {server.name} is your own: it gets the variables its entry names, as written")
        unused = [name for name in env if name not in server.as_written.variables]
        if unused:
            uses = ", ".join(f"${name}" for name in server.as_written.variables) or "no variable"
            raise UserError(f"MCP server {server.name} does not use ${unused[0]} (its entry uses {uses})")


def revoke(cwd: Path, names: Sequence[str], every: bool) -> list[str]:
    """Forget the approvals of the project's servers ``names`` (or ``every`` one); a running session stops them."""
    if not names and not every:
        raise UserError("name the servers whose approval to take back, or give --all")
    gone = forget_approvals(project_root(cwd), None if every else names)
    lines = [f"MCP server {name}: approval taken back; it will not start until approved again" for name in gone]
    lines += [f"MCP server {name}: it had no approval here" for name in names if name not in gone]
    return lines


def describe(server: ServerConfig) -> str:
    """What the server runs or where it connects, as written: the command line, or the URL (``${VAR}``, not values)."""
    return shown_command(server)


def _waiting_lines(waiting: list[ServerConfig], approvals: Mapping[str, Approval]) -> list[str]:
    if not waiting:
        return ["No MCP server of this project is waiting for approval."]
    lines = ["This project's files define MCP servers that hive has not started; approving one runs it as you:"]
    for server in waiting:
        lines.append(f"  {server.name}: {describe(server)}  [{server.source}]")
        lines += [f"      {detail}" for detail in shown_details(server)]
        change = what_changed(server, approvals.get(server.name))
        lines += [f"      asked again: {change}"] if change else []
    lines.append("Approve with: hive mcp approve NAME... (or --all)")
    return lines


def remove(cwd: Path, name: str, scope: str | None) -> None:
    """Delete server ``name`` from the given scope's plugins.yaml (else the project's, then the user's)."""
    scopes = (scope,) if scope else SCOPES
    for each in scopes:
        path = plugins_path(cwd, each)
        before = open_workspace(cwd) if each == "project" else None
        if remove_server(path, name):
            echo(f"Removed MCP server {name} from {path}")
            if before is not None:
                keep_trust(before)
            return
    mcp_json = project_root(cwd) / MCP_JSON
    if scope != "user" and _names_in_mcp_json(mcp_json, name):
        raise UserError(f"server {name!r} is defined in {mcp_json}, which hive reads but does not edit")
    files = ", ".join(str(plugins_path(cwd, each)) for each in scopes)
    raise UserError(f"no MCP server named {name!r} in {files}")


def _names_in_mcp_json(path: Path, name: str) -> bool:
    if not path.is_file():
        return False
    from engine.mcp.mcp_json import read_mcp_json

    entries, _problems = read_mcp_json(path)
    return name in entries
