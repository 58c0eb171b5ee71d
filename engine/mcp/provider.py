"""The tool provider that gives a session its MCP servers (the root agent's; started with the session).

A session's servers offer their cached tools while they start (:mod:`engine.mcp.tool_cache`), so a
run waits only for servers it has never seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.mcp.reload import server_files
from engine.paths import user_data_dir
from engine.tools.base import Toolset

if TYPE_CHECKING:
    from engine.capabilities import BuildContext
    from engine.mcp.client_requests import ClientRequests
    from engine.mcp.sampling import ServerSampling


class McpProvider:
    """Offers the configured servers' tools (when the ``mcp`` settings allow it), watching their files for changes."""

    def toolset(self, context: BuildContext) -> Toolset | None:
        config = context.config
        if not config.mcp.enabled:
            return None
        watching = config.mcp.hot_reload and any(path.is_file() for path in server_files(config.cwd))
        if not config.mcp_servers.enabled and not watching:
            return None
        from engine.mcp.manager import McpManager  # the client side of MCP, for a session that has servers
        from engine.mcp.roots import offered_roots
        from engine.sandbox.base import commands_can_write

        return McpManager(
            config.mcp_servers,
            user_data_dir() / "mcp-logs",
            guards=context.mcp_call_guards,
            reload_from=(config.cwd, config.mcp) if config.mcp.hot_reload else None,
            unsafe_dirs=commands_can_write(config.sandbox.options, config.cwd),
            known_tools=True,
            roots=offered_roots(config.cwd, config.sandbox.options),
            requests=client_requests(context),
        )


def client_requests(context: BuildContext) -> ClientRequests:
    """How the session's servers' requests are answered: elicitation and sampling by the approver, when it can ask
    a person (each declared to every server even when nobody can be asked, so a server's tools are the same in
    every host and a refused request tells the server why)."""
    from engine.mcp.client_requests import ClientRequests
    from engine.mcp.elicitation import ElicitationAsker, elicitation_handler

    approver = context.approver
    asker = approver if isinstance(approver, ElicitationAsker) else None
    elicit = elicitation_handler(asker, context.config.mcp_servers.elicitation)
    return ClientRequests(elicit=elicit, sample=server_sampling(context))


def server_sampling(context: BuildContext) -> ServerSampling:
    """The session's answer to a server's sampling request: asked of the person when the approver can ask one."""
    from engine.mcp.sampling import SamplingAsker, ServerSampling

    asker = context.approver if isinstance(context.approver, SamplingAsker) else None
    return ServerSampling(context.model, context.account, asker)
