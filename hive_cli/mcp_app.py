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


@mcp_app.command("list")
def mcp_list(cwd: CwdOpt = None, output_format: FormatOpt = Format.text) -> None:
    """Connect each server and print its transport, status, tool count, source file and last error."""
    with exit_on_error(False):
        from hive_cli.mcp_inspect import list_servers
        from hive_cli.workdir import resolve_cwd

        list_servers(resolve_cwd(cwd), output_format.value)


@mcp_app.command("tools")
def mcp_tools(
    server: Annotated[str, typer.Argument(metavar="SERVER", help="A configured server.")],
    cwd: CwdOpt = None,
    output_format: FormatOpt = Format.text,
) -> None:
    """Connect one server and print its tools as the model sees them."""
    with exit_on_error(False):
        from hive_cli.mcp_inspect import list_tools
        from hive_cli.workdir import resolve_cwd

        list_tools(resolve_cwd(cwd), server, output_format.value)


@mcp_app.command("call")
def mcp_call(
    server: Annotated[str, typer.Argument(metavar="SERVER", help="A configured server.")],
    tool: Annotated[str, typer.Argument(metavar="TOOL", help="The tool's name (the server's, or mcp__SERVER__TOOL).")],
    arguments: Annotated[
        str, typer.Option("--args", "-a", metavar="JSON", help="The arguments, a JSON object.")
    ] = "{}",
    cwd: CwdOpt = None,
) -> None:
    """Call one tool (for debugging; no permission rules apply) and print its result; exit 1 if it failed."""
    with exit_on_error(False):
        from hive_cli.mcp_inspect import call, parse_json_arguments
        from hive_cli.workdir import resolve_cwd

        parsed = parse_json_arguments(arguments)
        raise typer.Exit(call(resolve_cwd(cwd), server, tool, parsed))


@mcp_app.command("doctor")
def mcp_doctor(cwd: CwdOpt = None, output_format: FormatOpt = Format.text) -> None:
    """Connect each server: handshake, protocol version, timings, stderr tail and likely causes of failure."""
    with exit_on_error(False):
        from hive_cli.mcp_doctor import doctor
        from hive_cli.workdir import resolve_cwd

        raise typer.Exit(doctor(resolve_cwd(cwd), output_format.value))
