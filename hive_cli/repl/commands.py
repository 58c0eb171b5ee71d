"""Slash commands: a table of name → handler, all listed by /help."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from msgspec import Struct
from rich.text import Text

from engine.errors import HiveError
from hive_cli.terminal_text import visible

if TYPE_CHECKING:  # what the handlers need is imported when they run: the prompt must come up fast
    from engine.context.window import Window
    from engine.events import WorkingMode
    from hive_cli.repl.state import ReplState
    from hive_cli.repl.view import ReplView


class ExitRepl(Exception):
    """Raised by /exit."""


class Command(Struct, frozen=True):
    """One slash command."""

    name: str
    help: str
    run: Callable[[ReplState, ReplView, str], Awaitable[None]]


async def _help(state: ReplState, view: ReplView, arg: str) -> None:
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    for command in COMMANDS:
        table.add_row(Text("/" + command.name, style="bold"), command.help)
    view.print(table)
    from hive_cli.repl.custom_commands import custom_help

    custom = custom_help(state.cwd)
    if custom is not None:
        view.print(Text("Custom commands:", style="bold"))
        view.print(custom)
    view.print(
        Text("Enter sends · Alt+Enter newline · @path attaches a file · Ctrl-C cancels · Ctrl-D exits", style="dim")
    )


async def _switch_mode(state: ReplState, view: ReplView, mode: WorkingMode) -> None:
    state.choose_mode(mode)
    hint = "read-only tools only" if mode == "plan" else "all tools, each judged by the permission rules"
    view.print(Text(f"mode: {mode} ({hint})", style="dim"))


async def _plan(state: ReplState, view: ReplView, arg: str) -> None:
    await _switch_mode(state, view, "plan")


async def _work(state: ReplState, view: ReplView, arg: str) -> None:
    await _switch_mode(state, view, "work")


async def _model(state: ReplState, view: ReplView, arg: str) -> None:
    if not arg:
        window = f" · {window_text(state.session.window())}" if state.session is not None else ""
        view.print(Text(f"model: {state.model_name}{window}", style="dim"))
        return
    state.choose_model(arg)
    view.print(Text(f"model: {arg} (from the next request)", style="dim"))


_WINDOW_SOURCES = {
    "learned": "named by the provider's overflow error",
    "setting": "context.context_window",
    "model info": "the model table",
    "guess": "a guess: the model's window is not known",
}


def window_text(window: Window) -> str:
    """The window and where it comes from, for a person."""
    source = f"from {window.where}" if window.source == "server" else _WINDOW_SOURCES[window.source]
    return f"window {window.tokens:,} tokens ({source})"


async def _context(state: ReplState, view: ReplView, arg: str) -> None:
    if state.session is None:
        view.print(Text("Nothing in the context yet.", style="dim"))
        return
    from hive_cli.repl.context_view import context_table

    view.print(context_table(state.session.context_breakdown()))


async def _compact(state: ReplState, view: ReplView, arg: str) -> None:
    if state.session is None:
        view.print(Text("Nothing to compact yet.", style="dim"))
        return
    view.waiting("Compacting the conversation into the task ledger…")
    try:
        compacted = await state.session.compact(arg.strip())
    finally:
        view.pause()
    if compacted is None:
        view.print(Text("Nothing old enough to compact yet.", style="dim"))
        return
    kept = compacted.kept_messages
    view.print(
        Text(
            f"Compacted {compacted.summarised_messages} messages into the task ledger; {kept} kept whole.", style="dim"
        )
    )


async def _cost(state: ReplState, view: ReplView, arg: str) -> None:
    from hive_cli.output.summaries import cost_text, tokens_text

    usage = state.usage
    view.print(Text(f"session: {tokens_text(usage)} · {cost_text(usage)} · {usage.calls} model calls", style="bold"))
    for spender, spent in state.session.usage_by_spender if state.session is not None else ():
        view.print(Text(f"  {visible(spender)}: {tokens_text(spent)} · {cost_text(spent)} · {spent.calls} model calls"))
    report = state.last_result.report if state.last_result else None
    if report is not None:
        for model, used in report.by_model:
            view.print(Text(f"  last request, {model}: {tokens_text(used)} · {cost_text(used)}", style="dim"))
        for call in report.tool_calls:
            if call.usage.calls:
                view.print(Text(f"  tool {call.tool_name}: {tokens_text(call.usage)} · {cost_text(call.usage)}"))


async def _skills(state: ReplState, view: ReplView, arg: str) -> None:
    from hive_cli.skills_command import list_skills

    view.console.file.flush()
    list_skills(state.cwd)


async def _permissions(state: ReplState, view: ReplView, arg: str) -> None:
    from hive_cli.permissions_command import show_lines

    for line in show_lines(state.cwd, state.options.sandbox):
        view.print(Text(line))


async def _mcp(state: ReplState, view: ReplView, arg: str) -> None:
    from hive_cli.repl.mcp_view import show_mcp

    await show_mcp(state, view, arg)


async def _undo(state: ReplState, view: ReplView, arg: str) -> None:
    from hive_cli.repl.undo import undo_command

    await undo_command(state, view, arg)


async def _rewind(state: ReplState, view: ReplView, arg: str) -> None:
    from hive_cli.repl.undo import rewind_command

    await rewind_command(state, view, arg)


async def _clear(state: ReplState, view: ReplView, arg: str) -> None:
    await state.clear()
    view.print(Text("New conversation.", style="dim"))


SESSIONS_SHOWN = 20
"""Sessions ``/sessions`` lists (and ``/resume`` numbers): the latest ones; older ones by id."""


async def _sessions(state: ReplState, view: ReplView, arg: str) -> None:
    listing = await asyncio.to_thread(state.store.scan, state.cwd, SESSIONS_SHOWN)  # file reads off the event loop
    if listing.skipped:
        view.print(Text(f"{len(listing.skipped)} unreadable session file(s) skipped", style="yellow"))
    infos = listing.sessions
    if not infos:
        view.print(Text("No saved sessions for this directory.", style="dim"))
        return
    from rich.table import Table

    table = Table(box=None, padding=(0, 2))
    for column in ("#", "id", "last used", "first message"):
        table.add_column(column, style="bold" if column == "#" else "")
    for number, info in enumerate(infos, start=1):
        when = datetime.datetime.fromtimestamp(info.updated or info.created).strftime("%Y-%m-%d %H:%M")
        table.add_row(str(number), info.id, when, visible(info.title[:60]))
    view.print(table)


async def _resume(state: ReplState, view: ReplView, arg: str) -> None:
    infos = await asyncio.to_thread(state.store.list, state.cwd, SESSIONS_SHOWN)
    target = arg.strip()
    if not target:
        await _sessions(state, view, "")
        if not infos:
            return
        from prompt_toolkit import PromptSession

        target = (await PromptSession[str]().prompt_async("resume which (number or id, empty to cancel)? ")).strip()
        if not target:
            return
    if target.isdigit() and 1 <= int(target) <= len(infos):
        target = infos[int(target) - 1].id
    try:
        loaded = state.store.claim(target)
    except HiveError as error:
        view.print(Text(str(error), style="red"))
        return
    from hive_cli.repl.transcript import show_transcript

    await state.load(loaded)
    show_transcript(view, loaded)


async def _fork(state: ReplState, view: ReplView, arg: str) -> None:
    from hive_cli.repl.fork import fork_command

    await fork_command(state, view, arg)


async def _research(state: ReplState, view: ReplView, arg: str) -> None:
    from hive_cli.repl.research import research_command

    await research_command(state, view, arg)


async def _exit(state: ReplState, view: ReplView, arg: str) -> None:
    raise ExitRepl


COMMANDS: tuple[Command, ...] = (
    Command("help", "list the commands", _help),
    Command("plan", "plan mode: read-only tools; a checklist the agent writes is offered to execute", _plan),
    Command("work", "work mode: all tools, judged by the permission rules", _work),
    Command("model", "show the model, or switch: /model NAME", _model),
    Command("context", "what fills the context window", _context),
    Command("compact", "compact the conversation into a task ledger now: /compact [focus]", _compact),
    Command("cost", "tokens and cost so far", _cost),
    Command("skills", "the skills hive found", _skills),
    Command("mcp", "the MCP servers' status and tools: /mcp [SERVER]; /mcp approve|revoke [NAME]... [--all]", _mcp),
    Command("permissions", "the permission rules in effect", _permissions),
    Command("research", "research a question into a cited report: /research [--docs DIR] QUESTION", _research),
    Command("undo", "revert the files the last turn changed: /undo [--force]", _undo),
    Command("rewind", "revert every turn back to an earlier one: /rewind [N] [--force]", _rewind),
    Command("clear", "start a new conversation", _clear),
    Command("sessions", "saved sessions of this directory", _sessions),
    Command("resume", "continue a saved session: /resume [ID or number]", _resume),
    Command("fork", "go on in a copy of this conversation (or of session ID); the original stays: /fork [ID]", _fork),
    Command("exit", "leave hive (or Ctrl-D)", _exit),
)
BY_NAME = {command.name: command for command in COMMANDS}


async def run_command(line: str, state: ReplState, view: ReplView) -> None:
    """Run a slash command line (``/name args``)."""
    name, _, arg = line[1:].partition(" ")
    command = BY_NAME.get(name.strip())
    if command is None:
        view.print(Text(f"Unknown command /{name}. /help lists them.", style="red"))
        return
    await command.run(state, view, arg.strip())
