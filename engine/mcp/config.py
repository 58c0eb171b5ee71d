"""Which MCP servers a session connects to: ``plugins.yaml`` (user, then project) and the project's ``.mcp.json``.

Precedence by server name, the later source replacing the whole entry: the user's
``plugins.yaml`` < the project's ``.mcp.json`` < the project's ``.ironhive/plugins.yaml``. A broken
``plugins.yaml`` is a ``ConfigError`` naming the file, the line and the key; ``.mcp.json`` (another
tool's format) is read leniently: what cannot be used is skipped with a notice. A server from the
project's files starts only once the user approved it (:mod:`engine.mcp.approvals`), gets only the
variables the person allowed for it, and may not set loader variables (:mod:`engine.mcp.project_entry`).

Where a stdio server works: a project's server in the project root (it is the project's own code;
relative arguments name project files); the person's own server in hive's neutral folder for servers
(:func:`engine.mcp.stdio.launch_folder`), never the project, so a program started by module name or
through a package runner takes nothing from the repository. An entry's ``cwd`` is honoured (a relative
one is taken from the project root).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
from msgspec import Struct, field
from msgspec.structs import replace

from engine.config.files import describe_problem, read_document
from engine.config.validation import Invalid
from engine.errors import ConfigError
from engine.mcp.elicitation_question import ElicitationMode
from engine.mcp.oauth.machine_settings import machine_settings_problem
from engine.mcp.oauth.settings import EXPANDED_OAUTH_KEYS, OAuthEntry
from engine.mcp.options import McpOptions
from engine.mcp.project_entry import loader_problem, loader_variables, withheld_notice
from engine.paths import user_config_dir
from engine.records import hiding
from engine.workspace import Workspace, as_workspace

if TYPE_CHECKING:
    from engine.launch_files import NamedFile
    from engine.mcp.entries import PluginEntry, PluginsFile, Transport

PLUGINS_NAMES = ("plugins.yaml", "plugins.yml")
MCP_JSON = ".mcp.json"
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class WrittenEntry(Struct, frozen=True, kw_only=True):
    """A server's entry as its file spells it: ``${VAR}`` templates, never their values.

    What an approval covers and what a person is shown about a project's server, so that a rotated
    token keeps its approval and no value of the environment is ever printed.
    """

    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    oauth: OAuthEntry | None = None
    """The ``oauth:`` section as written (its ``client_secret`` a ``${VAR}`` template, or the secret itself)."""

    __repr__, __rich_repr__ = hiding("env", "headers", "oauth")

    @property
    def variables(self) -> tuple[str, ...]:
        """The environment variables the entry uses (``${NAME}``), sorted, each once."""
        texts = [self.command or "", *self.args, *self.env.values(), self.cwd or "", self.url or ""]
        texts += self.headers.values()
        texts += [getattr(self.oauth, key) or "" for key in EXPANDED_OAUTH_KEYS] if self.oauth is not None else []
        return tuple(sorted({match.group(1) for text in texts for match in _VARIABLE.finditer(text)}))


class ServerConfig(Struct, frozen=True, kw_only=True):
    """One MCP server, resolved: variables expanded, timeouts filled in, where it came from."""

    name: str
    transport: Transport
    source: Path
    """The file that defines the server (the one that won, when several name it)."""
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    """Where a stdio server runs; None: hive's neutral folder for servers (never the project)."""
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    from_project: bool = False
    """The project's files define it (``.mcp.json``, ``.ironhive/``), not the person's own ``plugins.yaml``."""
    untrusted_claims: bool = False
    """A project's server, the project not trusted: its tools' read-only claims let no call run unasked."""
    project: Path | None = None
    """The project root the server was configured in (where sandboxed commands write); None when unknown."""
    withheld: tuple[str, ...] = ()
    """The variables a project's entry uses that the person has not allowed for it (expanded as unset)."""
    enabled: bool = True
    startup_timeout: float = McpOptions().startup_timeout
    tool_timeout: float = McpOptions().tool_timeout
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] = ()
    roots: bool = True
    """Offer the server hive's roots (``roots/list``); False: no roots capability is declared to it."""
    problem: str | None = None
    """Why the server cannot start as configured (e.g. a variable that is not set); None when it can."""
    awaiting_approval: bool = False
    """The project's files define it and the user has not approved it as it is (see :mod:`engine.mcp.approvals`)."""
    written: WrittenEntry | None = None
    """The entry as written, before its variables were expanded; None when the values above are as written."""
    launch_files: tuple[NamedFile, ...] = ()
    """The project files a stdio server runs or reads as it starts, with their digests (:mod:`engine.launch_files`)."""
    oauth: OAuthEntry | None = None
    """How hive gets a token for an http or sse server (``client_secret`` expanded); None: what the server publishes."""

    __repr__, __rich_repr__ = hiding("args", "env", "url", "headers", "oauth")

    @property
    def as_written(self) -> WrittenEntry:
        """The entry as its file spells it (what may be shown to a person and what an approval covers)."""
        if self.written is not None:
            return self.written
        return WrittenEntry(
            command=self.command,
            args=self.args,
            env=self.env,
            cwd=None if self.cwd is None else str(self.cwd),
            url=self.url,
            headers=self.headers,
            oauth=self.oauth,
        )

    @property
    def fingerprint(self) -> str:
        """Changes whenever anything about how the server runs, or whether it can, changes (to restart only those).

        It covers the expanded values (a changed value restarts the server), so it is never shown.
        """
        expanded = {
            "command": self.command,
            "args": self.args,
            "env": dict(self.env),
            "cwd": None if self.cwd is None else str(self.cwd),
            "url": self.url,
            "headers": dict(self.headers),
            "oauth": msgspec.to_builtins(self.oauth),
        }
        return _digest(
            {
                "launch": self.launch_fingerprint,
                "expanded": expanded,
                "enabled": self.enabled,
                "from_project": self.from_project,
                "timeouts": [self.startup_timeout, self.tool_timeout],
                "tools": [self.include_tools, self.exclude_tools],
                "roots": self.roots,
                "problem": self.problem,
            }
        )

    @property
    def launch_fingerprint(self) -> str:
        """What an approval covers: the entry as written (templates, not values) and the launch files' contents.

        So a changed script or entry asks again; a rotated token, a timeout or a tool filter does not.
        """
        entry = msgspec.to_builtins(self.as_written)
        if entry.get("oauth") is None:  # absent from approvals given before the section existed
            entry.pop("oauth", None)
        return _digest(
            {
                "transport": self.transport,
                "entry": entry,
                "files": [[named.path, named.digest] for named in self.launch_files],
            }
        )


def _digest(value: object) -> str:
    return "sha256:" + hashlib.sha256(msgspec.json.encode(value, order="sorted")).hexdigest()


class McpServers(Struct, frozen=True):
    """Every configured server (disabled ones included), the files read, and what the person should be told."""

    servers: tuple[ServerConfig, ...] = ()
    sources: tuple[Path, ...] = ()
    notices: tuple[str, ...] = ()
    elicitation: ElicitationMode = "ask"
    """How the servers' elicitation requests are answered (the host's choice, never read from a file)."""

    @property
    def enabled(self) -> tuple[ServerConfig, ...]:
        """The servers to connect to."""
        return tuple(s for s in self.servers if s.enabled)


def load_servers(
    where: Workspace | Path, options: McpOptions | None = None, environ: Mapping[str, str] | None = None
) -> McpServers:
    """Read every MCP server list of the project and the user's; a broken ``plugins.yaml`` raises ``ConfigError``.

    In a project the person has not trusted, the project's own servers start only once approved one by one.
    """
    options = options or McpOptions()
    environ = os.environ if environ is None else environ
    workspace = as_workspace(where)
    root = workspace.root
    found: dict[str, ServerConfig] = {}
    sources: list[Path] = []
    notices: list[str] = []
    layers: list[tuple[Path, dict[str, PluginEntry]]] = []
    user_file = find_plugins_file(user_config_dir())
    if user_file is not None:
        layers.append((user_file, load_plugins_file(user_file).plugins))
    mcp_json = root / MCP_JSON
    if mcp_json.is_file():
        from engine.mcp.mcp_json import read_mcp_json  # imported here: its models are only needed with a file

        entries, problems = read_mcp_json(mcp_json)
        layers.append((mcp_json, entries))
        notices.extend(problems)
    project_file = find_plugins_file(workspace.config_dir)
    if project_file is not None:
        layers.append((project_file, load_plugins_file(project_file).plugins))
    has_project_servers = any(path != user_file for path, _entries in layers)
    allowances = _allowances(root) if has_project_servers and not workspace.trusted else {}
    for path, entries in layers:
        sources.append(path)
        ours = path == user_file
        for name, entry in entries.items():
            allowed = None if ours or workspace.trusted else allowances.get(name, ())
            found[name] = resolve_entry(
                name, entry, path, root, options, environ, from_project=not ours, allowed=allowed
            )
    servers = tuple(found.values())
    if not workspace.trusted and any(server.from_project for server in servers):
        servers = _unapproved_held_back(servers, root)
    notices += [
        withheld_notice(s.name, s.source.name, s.withheld)
        for s in servers
        if s.withheld and s.enabled and not s.problem
    ]
    return McpServers(servers=servers, sources=tuple(sources), notices=tuple(notices))


def _allowances(root: Path) -> dict[str, tuple[str, ...]]:
    from engine.mcp.approvals import approved

    return {name: approval.env for name, approval in approved(root).items()}


def _unapproved_held_back(servers: tuple[ServerConfig, ...], root: Path) -> tuple[ServerConfig, ...]:
    from engine.mcp.approvals import approved, is_approved, unapproved_problem

    approvals = approved(root)
    return tuple(
        server
        if not server.from_project or server.problem or is_approved(server, approvals)
        else replace(server, problem=unapproved_problem(server, approvals.get(server.name)), awaiting_approval=True)
        for server in servers
    )


def find_plugins_file(folder: Path) -> Path | None:
    """The first ``plugins.yaml``/``.yml`` in ``folder``."""
    for name in PLUGINS_NAMES:
        candidate = folder / name
        if candidate.exists():  # a folder or a FIFO of that name is an error when read, never skipped
            return candidate
    return None


def load_plugins_file(path: Path) -> PluginsFile:
    """Parse and check one ``plugins.yaml``; a problem is reported as ``file:line: key: problem``."""
    from engine.mcp.entries import PluginsFile, plugins_file  # imported here: only when a file exists

    data, lines = read_document(path)
    if data is None:
        return PluginsFile()
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: expected a 'plugins:' mapping of server names to their settings")
    try:
        return plugins_file(data)
    except Invalid as problem:
        raise ConfigError(describe_problem(path, problem, lines)) from None


def resolve_entry(
    name: str,
    entry: PluginEntry,
    source: Path,
    root: Path,
    options: McpOptions,
    environ: Mapping[str, str],
    *,
    from_project: bool = False,
    allowed: Collection[str] | None = None,
) -> ServerConfig:
    """``entry`` with its variables expanded and its defaults filled in from ``options``.

    ``from_project``: the project's files define it (it works in ``root`` unless its ``cwd`` says
    otherwise, and may not set loader variables); the person's own entry works in hive's neutral
    folder unless its ``cwd`` says otherwise. ``allowed``: the only variables of ``environ`` it may
    use (None: all); the others expand as if unset and are named in ``withheld``.
    """
    missing: list[str] = []
    visible = environ if allowed is None else {key: environ[key] for key in allowed if key in environ}

    def expand(text: str) -> str:
        return expand_variables(text, visible, missing)

    cwd = None
    if entry.cwd is not None:
        cwd = (root / Path(expand(entry.cwd)).expanduser()).resolve()
    elif entry.transport == "stdio" and from_project:
        cwd = root
    command = expand(entry.command) if entry.command else None
    args = tuple(expand(a) for a in entry.args)
    config = ServerConfig(
        name=name,
        transport=entry.transport,
        source=source,
        command=command,
        args=args,
        env={k: expand(v) for k, v in entry.env.items()},
        cwd=cwd,
        url=expand(entry.url) if entry.url else None,
        headers={k: expand(v) for k, v in entry.headers.items()},
        from_project=from_project,
        untrusted_claims=from_project and allowed is not None,
        project=root,
        enabled=entry.enabled,
        startup_timeout=entry.startup_timeout or options.startup_timeout,
        tool_timeout=entry.tool_timeout or options.tool_timeout,
        include_tools=tuple(entry.include_tools) if entry.include_tools is not None else None,
        exclude_tools=tuple(entry.exclude_tools),
        roots=entry.roots,
        oauth=_expanded_oauth(entry.oauth, expand),
        written=WrittenEntry(
            command=entry.command,
            args=tuple(entry.args),
            env=dict(entry.env),
            cwd=entry.cwd,
            url=entry.url,
            headers=dict(entry.headers),
            oauth=entry.oauth,
        ),
        launch_files=_launch_files(command, args, cwd, root),
    )
    if allowed is not None:
        config = replace(config, withheld=tuple(v for v in config.as_written.variables if v not in allowed))
        missing = [variable for variable in missing if variable not in config.withheld]
    loaders = loader_variables(entry.env) if from_project else []
    if loaders:
        return _with_problem(config, loader_problem(str(source), name, loaders))
    if missing:
        unset = ", ".join(sorted(set(missing)))
        return _with_problem(config, f"{source}: server {name!r} uses {unset}, which is not set in the environment")
    if problem := machine_settings_problem(config.oauth):
        return _with_problem(config, f"{source}: server {name!r}: {problem}")
    return config


def _expanded_oauth(oauth: OAuthEntry | None, expand: Callable[[str], str]) -> OAuthEntry | None:
    """The ``oauth:`` section with ``${VAR}`` expanded in its secrets and endpoints (like a header's value)."""
    if oauth is None:
        return oauth
    values = {key: getattr(oauth, key) for key in EXPANDED_OAUTH_KEYS}
    return replace(oauth, **{key: expand(value) for key, value in values.items() if value is not None})


def _launch_files(command: str | None, args: tuple[str, ...], cwd: Path | None, root: Path) -> tuple[NamedFile, ...]:
    if not command or cwd is None:
        return ()
    from engine.launch_files import launch_files  # imported here: needed only once a server is configured

    return launch_files([command, *args], cwd, root)


def expand_variables(text: str, environ: Mapping[str, str], missing: list[str]) -> str:
    """``text`` with ``${VAR}`` and ``${VAR:-default}`` replaced; names of unset variables without a default go to ``missing``."""

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value is not None and (value or default is None):
            return value
        if default is not None:
            return default
        missing.append(name)
        return ""

    return _VARIABLE.sub(replace, text)


def _with_problem(config: ServerConfig, problem: str) -> ServerConfig:
    return replace(config, problem=problem)
