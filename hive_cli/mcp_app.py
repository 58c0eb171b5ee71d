"""``hive mcp ...``: signatures only; each body imports what it needs (``mcp`` itself costs about a second)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from hive_cli.errors import exit_on_error

mcp_app = typer.Typer(
    help="MCP servers: add or remove them in plugins.yaml, list them, their tools, call one, diagnose.",
    no_args_is_help=True,
)


class TransportChoice(StrEnum):
    """How hive talks to a server."""

    stdio = "stdio"
    http = "http"
    sse = "sse"


class Scope(StrEnum):
    """Which plugins.yaml: the project's .ironhive/ or the user's config dir."""

    project = "project"
    user = "user"


class Format(StrEnum):
    """Plain text for people, JSON for scripts."""

    text = "text"
    json = "json"


CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", "-C", metavar="DIR", help="Work in this directory instead of the current one.")
]
FormatOpt = Annotated[Format, typer.Option("--format", help="text or json.")]


@mcp_app.command("add")
def mcp_add(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The server's name (tools become mcp__NAME__tool).")],
    target: Annotated[
        list[str] | None,
        typer.Argument(metavar="[-- COMMAND ARGS... | URL]", help="stdio: the command after --; http/sse: the URL."),
    ] = None,
    transport: Annotated[
        TransportChoice | None,
        typer.Option("--transport", "-t", help="stdio, http or sse (default: http for a lone URL, else stdio)."),
    ] = None,
    env: Annotated[
        list[str] | None, typer.Option("--env", "-e", metavar="K=V", help="Environment for a stdio server.")
    ] = None,
    header: Annotated[
        list[str] | None, typer.Option("--header", "-H", metavar="K=V", help="An HTTP header (http and sse).")
    ] = None,
    scope: Annotated[Scope, typer.Option("--scope", "-s", help="project or user.")] = Scope.project,
    force: Annotated[bool, typer.Option("--force", "-f", help="Replace a server of the same name.")] = False,
    cwd: CwdOpt = None,
) -> None:
    """Add a server to plugins.yaml (comments and order kept): hive mcp add NAME -- COMMAND ARGS..."""
    with exit_on_error(False):
        from hive_cli.mcp_command import add, new_server
        from hive_cli.workdir import resolve_cwd

        chosen = None if transport is None else transport.value
        server = new_server(name, target or [], chosen, env or [], header or [])  # type: ignore[arg-type]
        add(resolve_cwd(cwd), server, scope.value, force)


@mcp_app.command("remove")
def mcp_remove(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The server to remove.")],
    scope: Annotated[
        Scope | None, typer.Option("--scope", "-s", help="project or user (default: the project's, else the user's).")
    ] = None,
    cwd: CwdOpt = None,
) -> None:
    """Remove a server from plugins.yaml."""
    with exit_on_error(False):
        from hive_cli.mcp_command import remove
        from hive_cli.workdir import resolve_cwd

        remove(resolve_cwd(cwd), name, None if scope is None else scope.value)
