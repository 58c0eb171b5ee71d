"""MCP prompts as slash commands (``/mcp__server__prompt args``) and resources as ``@server:uri`` attachments."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from engine.mcp.connection import ServerConnection
    from engine.mcp.manager import McpManager
    from engine.session import Session
    from hive_cli.repl.state import ReplState
    from hive_cli.repl.view import ReplView

RESOURCE = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*):(\S+)$")
MAX_RESOURCE_CHARS = 100_000


def connections(manager: McpManager) -> list[ServerConnection]:
    """The enabled servers' connections, in configuration order."""
    found = (manager.connection(s.name) for s in manager.status())
    return [c for c in found if c is not None]


async def expand_prompt(line: str, state: ReplState, view: ReplView) -> str | None:
    """The user message a ``/mcp__server__prompt args`` line stands for (None, said why, when it cannot be had)."""
    from engine.mcp.errors import CallFailed
    from engine.mcp.prompts import find_prompt, prompt_arguments, prompt_text

    command, _, rest = line.removeprefix("/").partition(" ")
    session = state.session or await state.ensure_session(state.approver() if state.approver else None, title=line)
    manager = session.mcp
    if manager is None:
        view.print(Text(f"Unknown command /{command}: no MCP servers are configured.", style="red"))
        return None
    for connection in connections(manager):
        if command.startswith(f"mcp__{connection.config.name}__"):
            await connection.wait_settled()
    found = find_prompt(connections(manager), command)
    if found is None:
        view.print(Text(f"Unknown command /{command}. /mcp lists the servers' prompts.", style="red"))
        return None
    connection, prompt = found
    try:
        text = await prompt_text(connection, prompt, prompt_arguments(prompt, rest.strip()))
    except CallFailed as error:
        view.print(Text(f"✗ {error}", style="red"))
        return None
    if not text:
        view.print(Text(f"The prompt {prompt.name} gave no text.", style="yellow"))
        return None
    view.print(Text(f"› {text}", style="dim"))
    return text


def resource_mention(name: str, session: Session | None) -> tuple[ServerConnection, str] | None:
    """The server and URI of an ``@server:uri`` mention, when ``server`` is one of the session's MCP servers."""
    match = RESOURCE.match(name)
    manager = session.mcp if session is not None else None
    if match is None or manager is None:
        return None
    connection = manager.connection(match.group(1))
    return None if connection is None else (connection, match.group(2))


async def resource_block(connection: ServerConnection, uri: str) -> str:
    """The resource as a block to attach; raises ``CallFailed`` when it cannot be read."""
    from engine.mcp.prompts import resource_text

    await connection.wait_settled()
    text = await resource_text(connection, uri)
    note = ""
    if len(text) > MAX_RESOURCE_CHARS:
        text, note = text[:MAX_RESOURCE_CHARS], f" truncated to {MAX_RESOURCE_CHARS:,} characters"
    return f'<resource server="{connection.config.name}" uri="{uri}"{note}>\n{text}\n</resource>'
