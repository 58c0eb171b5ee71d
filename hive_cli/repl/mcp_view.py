"""``/mcp`` in the REPL: the servers with their status and tools, and a notice when one connects or fails later.

Names, descriptions and errors come from the servers: their control characters are shown (terminal_text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from hive_cli.terminal_text import visible

if TYPE_CHECKING:
    from engine.mcp.manager import McpManager, ServerStatus
    from hive_cli.repl.state import ReplState
    from hive_cli.repl.view import ReplView

MARKS = {
    "ready": ("●", "green"),
    "starting": ("◌", "yellow"),
    "failed": ("✗", "red"),
    "stopped": ("○", "dim"),
    "awaiting_approval": ("◇", "yellow"),
}
TOOLS_SHOWN = 12


def server_lines(statuses: Sequence[ServerStatus], detail: str = "") -> list[Text]:
    """Each server: mark, name, status, transport, tool count, timing and source; its tools, or its error."""
    lines: list[Text] = []
    for s in statuses:
        if detail and s.name != detail:
            continue
        mark, style = MARKS.get(s.state or "", ("○", "dim"))
        state = (s.state or "disabled").replace("_", " ")
        timing = f" · {s.connect_s:.2f} s" if s.connect_s is not None else ""
        line = Text(f"{mark} ", style=style)
        line.append(visible(s.name), style="bold")
        line.append(f"  {state} · {s.transport} · {len(s.tools)} tools{timing} · {s.source}", style="dim")
        lines.append(line)
        if s.state == "awaiting_approval":
            said = visible(s.error or "").replace("hive mcp approve", "/mcp approve")
            lines.append(Text(f"    not started: {said}", style="yellow"))
        elif s.error:
            lines.append(Text(f"    {visible(s.error)}", style="red"))
        lines.extend(_tool_lines(s, full=bool(detail)))
    return lines


def _tool_lines(s: ServerStatus, *, full: bool) -> list[Text]:
    if not s.tools:
        return []
    if full:
        return [Text(f"    {visible(info.tool or 'read_resource')}  {_summary(info.description)}") for info in s.tools]
    names = [visible(info.tool or "read_resource") for info in s.tools]
    more = f" … (+{len(names) - TOOLS_SHOWN}; /mcp {s.name} lists them)" if len(names) > TOOLS_SHOWN else ""
    from engine.mcp.prompts import prompt_command

    commands = ", ".join(f"/{prompt_command(s.name, name)}" for name in s.prompts)
    prompts = f"    prompts: {commands}" if s.prompts else ""
    return [Text(f"    tools: {', '.join(names[:TOOLS_SHOWN])}{more}"), *([Text(prompts)] if prompts else [])]


def _summary(description: str) -> str:
    first = description.strip().splitlines()[0] if description.strip() else ""
    return visible(first[:100])


def offer_prompts(completer: object, base: Sequence[tuple[str, str]], manager: McpManager) -> None:
    """Let Tab complete the servers' prompts (``/mcp__server__prompt``) after the built-in commands ``base``."""
    from engine.mcp.prompts import prompt_command
    from hive_cli.repl.shell import HiveCompleter

    if isinstance(completer, HiveCompleter):
        prompts = [
            (prompt_command(s.name, p), f"prompt of MCP server {s.name}") for s in manager.status() for p in s.prompts
        ]
        completer.commands = [*base, *prompts]


class McpNotices:
    """Says, as one line, each time a server connects or fails (and when a changed configuration is refused)."""

    def __init__(self, manager: McpManager, say: Callable[[Text], None]) -> None:
        self._manager = manager
        self._say = say
        self._seen = {s.name: s.state for s in manager.status()}
        self._reload_error: str | None = None
        manager.listen(self._changed)

    def _changed(self) -> None:
        manager = self._manager
        for s in manager.status():
            before = self._seen.get(s.name)
            self._seen[s.name] = s.state
            if s.state == before:
                continue
            if s.state == "ready":
                self._say(Text(f"● MCP server {visible(s.name)} connected ({len(s.tools)} tools)", style="dim"))
            elif s.state == "failed":
                self._say(Text(f"✗ MCP server {visible(s.name)} failed: {visible(s.error or '')}", style="red"))
        if manager.reload_error != self._reload_error:
            self._reload_error = manager.reload_error
            if manager.reload_error:
                self._say(Text(f"✗ MCP configuration not applied: {visible(manager.reload_error)}", style="red"))


async def show_mcp(state: ReplState, view: ReplView, arg: str) -> None:
    """``/mcp [SERVER]``: opens the session if needed (servers connect in the background) and shows them.

    ``/mcp approve|revoke [NAME]... [--all]`` approves the project's own servers (or takes the approval back), as
    ``hive mcp approve|revoke`` do.
    """
    words = arg.split()
    if words[:1] in (["approve"], ["revoke"]):
        change_approvals(state, view, words[0], words[1:])
        return
    session = state.session
    if session is None:
        view.print(Text("Starting the MCP servers (they connect in the background)…", style="dim"))
        session = await state.ensure_session(state.approver() if state.approver else None)
    manager = session.mcp
    if manager is None:
        view.print(Text(_no_servers(session.config.mcp.enabled), style="dim"))
        return
    statuses = manager.status()
    if arg and all(s.name != arg for s in statuses):
        view.print(Text(f"No MCP server {arg}; configured: {', '.join(s.name for s in statuses)}", style="red"))
        return
    for line in server_lines(statuses, arg):
        view.print(line)
    if any(s.state == "starting" for s in statuses):
        view.print(Text("(a line appears here when a starting server connects or fails)", style="dim"))


def _no_servers(enabled: bool) -> str:
    if not enabled:
        from hive_cli.mcp_inspect import SWITCHED_OFF

        return SWITCHED_OFF
    return "No MCP servers configured. Add one: hive mcp add NAME -- COMMAND ARGS..."


def change_approvals(state: ReplState, view: ReplView, action: str, words: list[str]) -> None:
    """``/mcp approve|revoke``: the open session starts or stops the servers (its configuration watcher sees it)."""
    from engine.errors import UserError
    from hive_cli.mcp_command import approve, revoke

    env = [word for before, word in zip(["", *words], words, strict=False) if before == "--env"]
    names = [word for word in words if word not in ("--all", "--env") and word not in env]
    try:
        if action == "approve":
            lines = approve(state.cwd, names, "--all" in words, env)
        else:
            lines = revoke(state.cwd, names, "--all" in words)
    except UserError as error:
        view.print(Text(str(error), style="red"))
        return
    for line in lines:
        view.print(Text(line.replace("hive mcp approve", "/mcp approve")))
