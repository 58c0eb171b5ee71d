"""The entries of ``.ironhive/plugins.yaml``: one MCP server each, validated strictly.

```yaml
plugins:
  everything:
    transport: stdio            # stdio (default) | http | sse, any case
    command: mcp-server-everything
    args: ["stdio"]
    env: {TOKEN: "${MY_TOKEN}"}  # ${VAR} and ${VAR:-default} are expanded
  docs:
    transport: http
    url: http://127.0.0.1:3001/mcp
    headers: {Authorization: "Bearer ${DOCS_TOKEN}"}
    tool_timeout: 30
    exclude_tools: [delete_*]
```
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from msgspec import Meta, field

from engine.config.validation import Invalid, KeyPath, StrictRecord, convert
from engine.globs import GlobError, name_glob
from engine.mcp.oauth.settings import OAuthEntry

Transport = Literal["stdio", "http", "sse"]
SERVER_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$")
"""A server name as it appears in ``mcp__{server}__{tool}``: letters, digits, ``-`` and single ``_``."""
NonEmpty = Annotated[str, Meta(min_length=1)]
Seconds = Annotated[float, Meta(gt=0)]


class PluginEntry(StrictRecord, frozen=True):
    """One server in ``plugins.yaml``; unknown keys are errors so a typo never passes silently.

    A msgspec record, like the settings: reading a ``plugins.yaml`` costs no pydantic import (some 70 ms,
    on the way of every run in a project with a server).
    """

    transport: Transport = "stdio"
    """How hive talks to the server: ``stdio`` (it runs ``command``), ``http`` (Streamable HTTP) or ``sse``."""
    command: NonEmpty | None = None
    """The program to run (stdio only)."""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    """Extra environment for the server (stdio); the rest of hive's environment is not passed on."""
    cwd: str | None = None
    """The server's working directory (stdio); relative to the project root. Default: the project root for a
    project's server, hive's own empty folder for one in the person's ``plugins.yaml`` (:mod:`engine.mcp.stdio`)."""
    url: NonEmpty | None = None
    """The server's address (http and sse only)."""
    headers: dict[str, str] = field(default_factory=dict)
    """HTTP headers sent with every request (http and sse), e.g. ``Authorization``."""
    enabled: bool = True
    startup_timeout: Seconds | None = None
    """Seconds the server may take to connect and list its tools (default: the ``mcp`` setting)."""
    tool_timeout: Seconds | None = None
    """Seconds one call may take (default: the ``mcp`` setting)."""
    include_tools: list[str] | None = None
    """Offer only these tools (names or globs, :mod:`engine.globs`, case exact); default: all."""
    exclude_tools: list[str] = field(default_factory=list)
    """Never offer these tools (names or globs); wins over ``include_tools``."""
    roots: bool = True
    """Offer the server the project root and ``sandbox.writable_roots`` (``roots/list``). ``false`` declares no
    roots, for a server that would otherwise serve them instead of the folders its command line names (the
    reference filesystem server does)."""
    oauth: OAuthEntry | None = None
    """How hive gets a token for the server (http and sse only; :mod:`engine.mcp.oauth.settings`)."""

    def __post_init__(self) -> None:
        for pattern in [*(self.include_tools or ()), *self.exclude_tools]:
            try:
                name_glob(pattern)
            except GlobError as exc:
                raise ValueError(f"tool pattern {pattern!r}: {exc}") from None
        self._fits_transport()

    def _fits_transport(self) -> None:
        if self.transport == "stdio":
            if self.command is None:
                raise ValueError("a stdio server needs a 'command' (or set 'transport: http' or 'sse' and a 'url')")
            if self.url is not None or self.headers:
                raise ValueError("'url' and 'headers' are for http and sse servers; this one is stdio")
        else:
            if self.url is None:
                raise ValueError(f"an {self.transport} server needs a 'url'")
            if self.command is not None or self.args or self.env or self.cwd is not None:
                raise ValueError(
                    f"'command', 'args', 'env' and 'cwd' are for stdio servers; this one is {self.transport}"
                )


class PluginsFile(StrictRecord, frozen=True):
    """A whole ``plugins.yaml``."""

    plugins: dict[str, PluginEntry] = field(default_factory=dict)


def plugins_file(data: Any) -> PluginsFile:
    """``data`` (a parsed ``plugins.yaml``) as a :class:`PluginsFile`; raises :class:`Invalid` at its first problem."""
    if data is None:
        return PluginsFile()
    if not isinstance(data, dict):
        raise Invalid((), "should be a mapping")
    for key in data:
        if key != "plugins":
            raise Invalid((str(key),), "unknown key")
    plugins = data.get("plugins")
    if plugins is None:
        return PluginsFile()
    if not isinstance(plugins, dict):
        raise Invalid(("plugins",), "should be a mapping")
    entries: dict[str, PluginEntry] = {}
    for name, raw in plugins.items():
        try:
            check_server_name(str(name))
        except ValueError as exc:
            raise Invalid(("plugins",), str(exc)) from None
        entries[str(name)] = plugin_entry(raw, ("plugins", str(name)))
    return PluginsFile(plugins=entries)


def plugin_entry(raw: Any, where: KeyPath = ()) -> PluginEntry:
    """One server's entry (``where``: its key path, for messages); raises :class:`Invalid` at its first problem."""
    try:
        return convert(_normalized(raw), PluginEntry)
    except Invalid as exc:
        raise Invalid((*where, *exc.loc), exc.problem) from None


def _normalized(raw: Any) -> Any:
    """A transport in any case, and numbers among the arguments, as the entry takes them."""
    if not isinstance(raw, dict):
        return raw
    values = dict(raw)
    transport = values.get("transport")
    if isinstance(transport, str):
        values["transport"] = transport.strip().lower()
    args = values.get("args")
    if isinstance(args, list):
        values["args"] = [str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v for v in args]
    return values


def check_server_name(name: str) -> None:
    """Raise ``ValueError`` unless ``name`` can appear in ``mcp__{server}__{tool}``."""
    if not SERVER_NAME.match(name):
        raise ValueError(
            f"server name {name!r} must be letters, digits, '-' and single '_' (it becomes mcp__{{server}}__{{tool}})"
        )
