"""What a project's configuration would change that an untrusted one cannot, said once and asked about once.

:func:`review` lists, for the project of a :class:`~engine.workspace.Workspace`, every item the
project's files ask for beyond tightening: settings (endpoints, hooks, webhooks, raised limits...),
permission rules that allow, and the project's MCP servers not approved one by one. The REPL puts
that list to the person before the first model call; ``hive trust`` does the same from the shell;
``hive run`` says it on stderr and runs untrusted. :func:`trust_project` records the decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import replace

from engine.mcp.config import McpServers, ServerConfig
from engine.workspace import COMMAND_FOLDERS, Workspace

if TYPE_CHECKING:
    from engine.trust.store import TrustRecord


class TrustReview(Struct, frozen=True, kw_only=True):
    """The project's configuration, as far as trust is concerned: what it asked for and did not get."""

    workspace: Workspace
    items: tuple[str, ...] = ()
    """Each thing the project's files ask for that was not applied, as a person should read it."""

    @property
    def asks(self) -> bool:
        """Whether there is a question to put: an untrusted project whose files would loosen something."""
        return self.workspace.trust == "untrusted" and bool(self.items)

    def notice(self) -> str | None:
        """The one block said at the start of a session (None when there is nothing to say)."""
        if not self.items:
            return None
        listed = "\n".join(f"  - {item}" for item in self.items)
        if not self.asks:
            return f"this project's settings ask for more than your own settings allow; ignored:\n{listed}"
        changed = " changed since you trusted it, so it" if self.workspace.changed else ""
        return (
            f"this project's configuration{changed} is not trusted: it may only tighten what hive does. Ignored:\n"
            f"{listed}\n"
            "Review and trust it with `hive trust` (or for one run: hive run --trust-project)."
        )


def trust_items(
    settings: tuple[str, ...], permissions: tuple[str, ...], servers: McpServers, commands: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """Everything an untrusted project asked for in vain, in the order a person reads it."""
    waiting = tuple(
        f"MCP server {server.name} ({server.source.name}): {_launch(server)}"
        for server in servers.servers
        if server.awaiting_approval
    )
    return (*settings, *permissions, *waiting, *commands)


def command_items(workspace: Workspace) -> tuple[str, ...]:
    """The project's slash commands that name a model or a mode: what they would change once trusted."""
    if workspace.trust == "no-config" or not any((workspace.root / f).is_dir() for f in COMMAND_FOLDERS):
        return ()
    from engine.custom_commands import discover_commands

    items = []
    for command in discover_commands(workspace.cwd).commands.values():
        if command.scope != "project":
            continue
        changes = [f"model {command.model}"] * bool(command.model) + [f"mode {command.mode}"] * bool(command.mode)
        if changes:
            items.append(f"command /{command.name} ({_shown(command.path, workspace.root)}): {', '.join(changes)}")
    return tuple(items)


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _launch(server: ServerConfig) -> str:
    """What the server runs or reaches, as written: variable names, never their values."""
    from engine.mcp.approvals import shown_command

    variables = server.as_written.variables
    uses = f" (uses {', '.join(f'${name}' for name in variables)})" if variables else ""
    return shown_command(server) + uses


def review(workspace: Workspace) -> TrustReview:
    """What the project at ``workspace`` would change if trusted (read as if it were not); loads no model."""
    from engine.config.settings import load_settings
    from engine.mcp.config import load_servers
    from engine.policy.config import load_permissions

    untrusted = replace(workspace, trust="untrusted")
    settings = load_settings(untrusted)
    permissions = load_permissions(untrusted)
    merged = settings.merged()
    servers = load_servers(untrusted, merged.mcp) if merged.mcp.enabled else McpServers()
    items = trust_items(settings.ignored, permissions.ignored, servers, command_items(untrusted))
    return TrustReview(workspace=workspace, items=items)


def trust_project(review: TrustReview) -> TrustRecord:
    """Record that the person trusts the project of ``review`` as its configuration is now."""
    from engine.trust.store import save_trust

    workspace = review.workspace
    return save_trust(workspace.root, workspace.digest, review.items)


def keep_trust(before: Workspace) -> None:
    """After the person changed the project's configuration themselves (``hive mcp add``), a project they had
    trusted stays trusted as it is now; an untrusted one stays untrusted."""
    from engine.workspace import open_workspace

    if before.trust != "trusted":
        return
    now = open_workspace(before.cwd)
    if now.trust == "untrusted" and now.root == before.root:
        trust_project(review(now))
