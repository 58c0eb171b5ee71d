"""A server's prompts and resources for hosts: a prompt's messages as text, a resource's contents as text.

Hosts offer prompts as slash commands (``/mcp__{server}__{prompt} args``) and resources as
``@server:uri`` attachments; both are fetched here, and every failure is a ``CallFailed`` whose
message says what went wrong.
"""

from __future__ import annotations

import shlex
from typing import Any

from engine.mcp.connection import ServerConnection
from engine.mcp.content import block_text, result_text
from engine.mcp.errors import CallFailed, describe_call_error
from engine.mcp.tools import exposed_name


def prompt_command(server: str, prompt: str) -> str:
    """The slash command's name for a prompt: ``mcp__{server}__{prompt}`` (made safe as tool names are)."""
    return exposed_name(server, prompt)


def find_prompt(connections: list[ServerConnection], command: str) -> tuple[ServerConnection, Any] | None:
    """The server and prompt a ``mcp__server__prompt`` command names, among the connected servers."""
    for connection in connections:
        for prompt in connection.listing.prompts:
            if prompt_command(connection.config.name, prompt.name) == command:
                return connection, prompt
    return None


def prompt_arguments(prompt: Any, text: str) -> dict[str, str]:
    """``text`` as the prompt's arguments: ``key=value`` words by name, otherwise words in order
    (the last argument takes the rest). A missing required argument is a ``CallFailed``."""
    declared = list(prompt.arguments or [])
    names = [a.name for a in declared]
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    values: dict[str, str] = {}
    if words and all(w.partition("=")[0] in names and "=" in w for w in words):
        values = dict(w.split("=", 1) for w in words)
    elif words:
        for index, name in enumerate(names):
            if index >= len(words):
                break
            values[name] = " ".join(words[index:]) if index == len(names) - 1 else words[index]
        if len(words) > len(names) and not names:
            raise CallFailed(f"prompt {prompt.name!r} takes no arguments")
    missing = [a.name for a in declared if a.required and a.name not in values]
    if missing:
        usage = " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in declared)
        raise CallFailed(f"prompt {prompt.name!r} needs {', '.join(missing)} (usage: {usage})")
    return values


async def prompt_text(connection: ServerConnection, prompt: Any, arguments: dict[str, str]) -> str:
    """The prompt's messages, fetched from the server, as one text (blank lines between messages)."""
    client = await connection.client()
    try:
        result = await client.get_prompt(prompt.name, arguments or None)
    except Exception as exc:
        raise CallFailed(
            describe_call_error(exc, connection.config.name, prompt.name, connection.config.tool_timeout)
        ) from None
    return "\n\n".join(block_text(message.content) for message in result.messages).strip()


async def resource_text(connection: ServerConnection, uri: str) -> str:
    """The resource's contents as text (binary contents described, not included)."""
    client = await connection.client()
    try:
        result = await client.read_resource(uri, cache_mode="bypass")
    except Exception as exc:
        raise CallFailed(
            describe_call_error(exc, connection.config.name, uri, connection.config.tool_timeout)
        ) from None
    return result_text(result)
