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
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.globs import GlobError, name_glob

Transport = Literal["stdio", "http", "sse"]
SERVER_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$")
"""A server name as it appears in ``mcp__{server}__{tool}``: letters, digits, ``-`` and single ``_``."""


class PluginEntry(BaseModel):
    """One server in ``plugins.yaml``; unknown keys are errors so a typo never passes silently."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    transport: Transport = "stdio"
    """How hive talks to the server: ``stdio`` (it runs ``command``), ``http`` (Streamable HTTP) or ``sse``."""
    command: str | None = Field(default=None, min_length=1)
    """The program to run (stdio only)."""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment for the server (stdio); the rest of hive's environment is not passed on."""
    cwd: str | None = None
    """The server's working directory (stdio); relative to the project root. Default: the project root for a
    project's server, hive's own empty folder for one in the person's ``plugins.yaml`` (:mod:`engine.mcp.stdio`)."""
    url: str | None = Field(default=None, min_length=1)
    """The server's address (http and sse only)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers sent with every request (http and sse), e.g. ``Authorization``."""
    enabled: bool = True
    startup_timeout: float | None = Field(default=None, gt=0)
    """Seconds the server may take to connect and list its tools (default: the ``mcp`` setting)."""
    tool_timeout: float | None = Field(default=None, gt=0)
    """Seconds one call may take (default: the ``mcp`` setting)."""
    include_tools: list[str] | None = None
    """Offer only these tools (names or globs, :mod:`engine.globs`, case exact); default: all."""
    exclude_tools: list[str] = Field(default_factory=list)
    """Never offer these tools (names or globs); wins over ``include_tools``."""

    @field_validator("include_tools", "exclude_tools", mode="after")
    @classmethod
    def _globs(cls, value: list[str] | None) -> list[str] | None:
        for pattern in value or ():
            try:
                name_glob(pattern)
            except GlobError as exc:
                raise ValueError(f"tool pattern {pattern!r}: {exc}") from None
        return value

    @field_validator("transport", mode="before")
    @classmethod
    def _any_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("args", mode="before")
    @classmethod
    def _args_as_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v for v in value]
        return value

    @model_validator(mode="after")
    def _fits_transport(self) -> PluginEntry:
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
        return self


class PluginsFile(BaseModel):
    """A whole ``plugins.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    plugins: dict[str, PluginEntry] = Field(default_factory=dict)

    @field_validator("plugins", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_validator("plugins", mode="after")
    @classmethod
    def _names(cls, value: dict[str, PluginEntry]) -> dict[str, PluginEntry]:
        for name in value:
            check_server_name(name)
        return value


def check_server_name(name: str) -> None:
    """Raise ``ValueError`` unless ``name`` can appear in ``mcp__{server}__{tool}``."""
    if not SERVER_NAME.match(name):
        raise ValueError(
            f"server name {name!r} must be letters, digits, '-' and single '_' (it becomes mcp__{{server}}__{{tool}})"
        )
