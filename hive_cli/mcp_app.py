"""``hive mcp ...``: signatures only; each body imports what it needs (``mcp`` itself costs about a second)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from hive_cli.cli_base import HiveGroup, exit_with
from hive_cli.cli_options import cwd_option, format_option
from hive_cli.errors import exit_on_error
from hive_cli.terminal_text import echo

if TYPE_CHECKING:
    from engine.mcp.elicitation_question import ElicitationMode

SCOPES = ("project", "user")


@click.group("mcp", cls=HiveGroup, no_args_is_help=True)
def mcp_app() -> None:
    """MCP servers: add or remove them in plugins.yaml, approve the project's (or revoke), log in, list them, their tools, call one, diagnose."""


@mcp_app.command("add")
@click.argument("name", metavar="NAME", help="The server's name (tools become mcp__NAME__tool).")
@click.argument(
    "target",
    metavar="[-- COMMAND ARGS... | URL]",
    nargs=-1,
    help="stdio: the command after --; http/sse: the URL.",
)
@click.option(
    "--transport",
    "-t",
    type=click.Choice(("stdio", "http", "sse")),
    help="stdio, http or sse (default: http for a lone URL, else stdio).",
)
@click.option("--env", "-e", metavar="K=V", multiple=True, help="Environment for a stdio server.")
@click.option("--header", "-H", metavar="K=V", multiple=True, help="An HTTP header (http and sse).")
@click.option("--scope", "-s", type=click.Choice(SCOPES), default="project", show_default=True, help="project or user.")
@click.option("--force", "-f", is_flag=True, help="Replace a server of the same name.")
@cwd_option
def mcp_add(
    name: str,
    target: tuple[str, ...],
    transport: str | None,
    env: tuple[str, ...],
    header: tuple[str, ...],
    scope: str,
    force: bool,
    cwd: Path | None,
) -> None:
    """Add a server to plugins.yaml (comments and order kept): hive mcp add NAME -- COMMAND ARGS..."""
    with exit_on_error(False):
        from hive_cli.mcp_command import add, new_server
        from hive_cli.workdir import resolve_cwd

        server = new_server(name, list(target), transport, list(env), list(header))  # type: ignore[arg-type]
        add(resolve_cwd(cwd), server, scope, force)


@mcp_app.command("remove")
@click.argument("name", metavar="NAME", help="The server to remove.")
@click.option(
    "--scope", "-s", type=click.Choice(SCOPES), help="project or user (default: the project's, else the user's)."
)
@cwd_option
def mcp_remove(name: str, scope: str | None, cwd: Path | None) -> None:
    """Remove a server from plugins.yaml."""
    with exit_on_error(False):
        from hive_cli.mcp_command import remove
        from hive_cli.workdir import resolve_cwd

        remove(resolve_cwd(cwd), name, scope)


@mcp_app.command("approve")
@click.argument("names", metavar="[NAME]...", nargs=-1, help="The project's servers to approve.")
@click.option("--all", "every", is_flag=True, help="Approve every server of the project waiting for approval.")
@click.option(
    "--env",
    "-e",
    "env",
    metavar="VAR",
    multiple=True,
    help="Let the named servers have this variable of your environment (their entry's ${VAR}).",
)
@cwd_option
def mcp_approve(names: tuple[str, ...], every: bool, env: tuple[str, ...], cwd: Path | None) -> None:
    """Let the project's own servers (.mcp.json, .ironhive/plugins.yaml) start; without NAME, list those waiting."""
    with exit_on_error(False):
        from hive_cli.mcp_command import approve
        from hive_cli.workdir import resolve_cwd

        for line in approve(resolve_cwd(cwd), names, every, env):
            echo(line)


@mcp_app.command("revoke")
@click.argument("names", metavar="[NAME]...", nargs=-1, help="The project's servers whose approval to take back.")
@click.option("--all", "every", is_flag=True, help="Take back every approval given in this project.")
@cwd_option
def mcp_revoke(names: tuple[str, ...], every: bool, cwd: Path | None) -> None:
    """Take back the approval of the project's own servers: they stop, and start again only once approved."""
    with exit_on_error(False):
        from hive_cli.mcp_command import revoke
        from hive_cli.workdir import resolve_cwd

        for line in revoke(resolve_cwd(cwd), names, every):
            echo(line)


@mcp_app.command("list")
@cwd_option
@format_option
def mcp_list(cwd: Path | None, output_format: str) -> None:
    """Connect each server and print its transport, status, tool count, source file and last error."""
    with exit_on_error(False):
        from hive_cli.mcp_inspect import list_servers
        from hive_cli.workdir import resolve_cwd

        list_servers(resolve_cwd(cwd), output_format)


OPEN_WITH_HELP = "Run CMD with the authorization URL as its last argument instead of opening a browser."


@mcp_app.command("tools")
@click.argument("server", metavar="SERVER", help="A configured server.")
@click.option("--open-with", metavar="CMD", help="If the server asks for a (wider) login: " + OPEN_WITH_HELP)
@cwd_option
@format_option
def mcp_tools(server: str, open_with: str | None, cwd: Path | None, output_format: str) -> None:
    """Connect one server and print its tools as the model sees them."""
    with exit_on_error(False):
        from hive_cli.mcp_inspect import list_tools
        from hive_cli.mcp_login import maybe_reaching_person
        from hive_cli.workdir import resolve_cwd

        with maybe_reaching_person(resolve_cwd(cwd), open_with):
            list_tools(resolve_cwd(cwd), server, output_format)


@mcp_app.command("call")
@click.argument("server", metavar="SERVER", help="A configured server.")
@click.argument("tool", metavar="TOOL", help="The tool's name (the server's, or mcp__SERVER__TOOL).")
@click.option("--args", "-a", "arguments", metavar="JSON", default="{}", help="The arguments, a JSON object.")
@click.option(
    "--elicitation",
    type=click.Choice(("decline", "defaults")),
    default="decline",
    show_default=True,
    help="A request for a value from you (MCP elicitation): decline it, or accept a form whose every "
    "required field has a default, with the defaults.",
)
@click.option("--open-with", metavar="CMD", help="If the server asks for a (wider) login: " + OPEN_WITH_HELP)
@cwd_option
def mcp_call(
    server: str, tool: str, arguments: str, elicitation: ElicitationMode, open_with: str | None, cwd: Path | None
) -> None:
    """Call one tool (for debugging; no permission rules apply) and print its result; exit 1 if it failed."""
    with exit_on_error(False):
        from hive_cli.mcp_inspect import call, parse_json_arguments
        from hive_cli.mcp_login import maybe_reaching_person
        from hive_cli.workdir import resolve_cwd

        parsed = parse_json_arguments(arguments)
        with maybe_reaching_person(resolve_cwd(cwd), open_with):
            status = call(resolve_cwd(cwd), server, tool, parsed, elicitation)
        exit_with(status)


@mcp_app.command("login")
@click.argument("name", metavar="NAME", help="An http or sse server.")
@click.option("--open-with", metavar="CMD", help=OPEN_WITH_HELP)
@cwd_option
def mcp_login(name: str, open_with: str | None, cwd: Path | None) -> None:
    """Log in to a server that uses OAuth (opens the browser, or prints the URL) and keep its token."""
    with exit_on_error(False):
        from hive_cli.mcp_login import login
        from hive_cli.workdir import resolve_cwd

        login(resolve_cwd(cwd), name, open_with)


@mcp_app.command("logout")
@click.argument("name", metavar="NAME", help="The server whose login to forget.")
@cwd_option
def mcp_logout(name: str, cwd: Path | None) -> None:
    """Forget the token (and registration) hive keeps for a server."""
    with exit_on_error(False):
        from hive_cli.mcp_login import logout
        from hive_cli.workdir import resolve_cwd

        logout(resolve_cwd(cwd), name)


@mcp_app.command("doctor")
@cwd_option
@format_option
def mcp_doctor(cwd: Path | None, output_format: str) -> None:
    """Connect each server: handshake, protocol version, timings, stderr tail and likely causes of failure."""
    with exit_on_error(False):
        from hive_cli.mcp_doctor import doctor
        from hive_cli.workdir import resolve_cwd

        exit_with(doctor(resolve_cwd(cwd), output_format))
