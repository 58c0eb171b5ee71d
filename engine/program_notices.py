"""What hive passed over when it looked for the programs it runs outside the sandbox, said once at the start.

The lookups are the ones the tools, the sandbox and the MCP servers make (and cache), so what is said
is what will run: bash for commands and hooks, ``rg`` for the search tools, ``bwrap``, each stdio MCP
server's program; and where hive's own install lies in a folder commands can write, that the sandbox
keeps it read-only.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from engine.sandbox.base import commands_can_write, shell_lookup
from engine.tools.ripgrep import ripgrep_lookup

if TYPE_CHECKING:
    from engine.config.loader import SessionConfig


def program_notices(config: SessionConfig) -> tuple[str, ...]:
    """One line for each program some candidate of which was passed over, and one about hive's own install."""
    unsafe = commands_can_write(config.sandbox.options, config.cwd)
    lines = [shell_lookup(unsafe).notice(), ripgrep_lookup(unsafe).notice()]
    if config.sandbox.confined and sys.platform.startswith("linux"):
        from engine.sandbox.bwrap import bwrap_lookup

        lines.append(bwrap_lookup(unsafe).notice())
    lines += _server_notices(config, unsafe)
    lines.append(_install_notice(config))
    return tuple(line for line in lines if line)


def _server_notices(config: SessionConfig, unsafe: tuple[Path, ...]) -> Iterator[str | None]:
    servers = [s for s in config.mcp_servers.enabled if s.transport == "stdio" and s.command and not s.problem]
    if not config.mcp.enabled or not servers:
        return
    from engine.mcp.errors import without_values
    from engine.mcp.stdio import server_program

    for server in servers:
        notice = server_program(server, unsafe).notice()
        yield f"MCP server {server.name} ({server.source}): {without_values(notice, server)}" if notice else None


def _install_notice(config: SessionConfig) -> str | None:
    options = config.sandbox.options
    if not config.sandbox.confined or options.mode != "workspace-write":
        return None
    from engine.sandbox.install import hive_install

    writable = [Path(os.path.realpath(path)) for path in commands_can_write(options, config.cwd)]
    project = writable[0]
    inside: list[Path] = []
    for path in sorted(hive_install(), key=lambda path: len(path.parts)):
        within = any(path.is_relative_to(root) for root in writable) and not project.is_relative_to(path)
        if within and not any(path.is_relative_to(outer) for outer in inside):
            inside.append(path)
    if not inside:
        return None
    shown = ", ".join(str(path) for path in inside)
    return f"hive's own install lies in a folder commands can write ({shown}); the sandbox keeps it read-only"
