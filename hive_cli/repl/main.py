"""The REPL: read a line, run it (or a slash command), show the run, repeat.

The prompt is up before anything heavy loads. Ctrl-C during a run cancels it (the running command's
process group is killed, partial output stays, usage is still counted); Ctrl-C twice at an empty
prompt, or Ctrl-D, leaves. SIGTERM, or SIGHUP when the terminal closes, cancels the run in progress
the same way and then leaves, with exit status 143 or 129.
"""

from __future__ import annotations

import asyncio
import functools
import signal
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from engine import __version__
from engine.errors import HiveError, NoModelError
from engine.model.vision import no_vision_message
from hive_cli import collection
from hive_cli.image_files import pasted_image
from hive_cli.interrupts import Ending
from hive_cli.repl.commands import ExitRepl, run_command
from hive_cli.repl.custom_commands import builtin_choices, custom_choices, find_command, list_ahead
from hive_cli.repl.mentions import attach_mentions
from hive_cli.repl.shell import make_prompt, prompt_message
from hive_cli.repl.state import ReplOptions, ReplState
from hive_cli.repl.status_line import StatusLine
from hive_cli.safe_console import SafeConsole
from hive_cli.terminal_text import visible

if TYPE_CHECKING:  # the view (markdown, syntax highlighting) loads after the prompt is up
    from engine.custom_commands import CustomCommand
    from engine.policy.gate import Approver
    from engine.session import Session
    from hive_cli.repl.view import ReplView

NO_MODEL_IN_REPL = """No model is configured and no local model server was found. Pick one:
  /model openai/gpt-4o                   with OPENAI_API_KEY set (or another provider's model and key)
  ollama serve && ollama pull qwen2.5-coder   hive finds Ollama, LM Studio or llama.cpp on their default ports
  model: openai/gpt-4o                   in .ironhive/settings.yaml, then restart hive"""
DOUBLE_CTRL_C_S = 2.0
BACKGROUND_START_DELAY_S = 0.15


class Repl:
    """One interactive session at the terminal."""

    def __init__(self, options: ReplOptions, console: Console | None = None) -> None:
        self.state = ReplState(options)
        self.console = console or SafeConsole(highlight=False)
        self._view: ReplView | None = None
        self.status = StatusLine(self.state)
        self.prompt = make_prompt(
            options.cwd, builtin_choices(), self.status, more=lambda: custom_choices(self.state.cwd)
        )
        self._last_ctrl_c = 0.0
        self._leaving = False
        self._running: Session | None = None
        """The session whose run is in progress, if one is."""
        self._hinted_planning = False
        self._trust_asked = False
        self.ending = Ending()
        self.state.approver = self._approver
        self.state.on_open.append(self._watch_mcp)

    @property
    def view(self) -> ReplView:
        """The view, made on first use."""
        if self._view is None:
            from hive_cli.repl.view import ReplView

            self._view = ReplView(self.console)
        return self._view

    def _approver(self) -> Approver:
        # Imported here: the policy machinery is not needed to show the prompt.
        from engine.policy.gate import ApproveEverything
        from hive_cli.repl.approver import ReplApprover

        return ApproveEverything() if self.state.options.yes else ReplApprover(self.view)

    async def run(self) -> int:
        """The read-eval-print loop; the exit status (0, or 143/129 when SIGTERM/SIGHUP ended it)."""
        with self.ending.caught(asyncio.get_running_loop(), self._end):
            await self._loop()
        return self.ending.exit_status or 0

    async def _loop(self) -> None:
        await self._greet()
        # Let the prompt draw and take keystrokes before the heavy imports start competing for the CPU.
        asyncio.get_running_loop().call_later(BACKGROUND_START_DELAY_S, self._start_background)
        while not self._leaving:
            self._catch_ctrl_c()  # again: prompt-toolkit takes SIGINT over while its prompt is up
            try:
                line = await self.prompt.prompt_async(prompt_message(self.state.mode), pre_run=self._leave_if_asked)
            except KeyboardInterrupt:
                if self._second_ctrl_c():
                    break
                continue
            except EOFError:
                break
            try:
                await self._handle(line)
            except ExitRepl:
                break
            except HiveError as error:
                self.view.print(Text(f"✗ {error}", style="red"))
            finally:
                self.status.changed()
        await self.state.close()

    def _start_background(self) -> None:
        self.state.start_background()
        self.state.when_loaded(self._report_load)
        self.state.when_loaded(lambda _: collection.resume())  # start-up ends with the background load
        self.state.when_loaded(lambda _: list_ahead(self.state.cwd))

    def _watch_mcp(self, session: Session) -> None:
        """A line at the terminal whenever one of the session's MCP servers connects or fails."""
        manager = session.mcp
        if manager is not None:
            from hive_cli.repl.mcp_view import McpNotices, offer_prompts

            McpNotices(manager, self._say)
            base = builtin_choices()
            manager.listen(lambda: offer_prompts(self.prompt.completer, base, manager))
            offer_prompts(self.prompt.completer, base, manager)

    def _say(self, line: Text) -> None:
        """Print ``line`` above the prompt if it is up, else straight into the scrollback."""
        from prompt_toolkit.application import run_in_terminal

        say = functools.partial(self.console.print, line)
        if self.prompt.app.is_running:
            run_in_terminal(say)
        else:
            say()

    def _report_load(self, error: BaseException | None) -> None:
        """A configuration problem, or a project server waiting for approval, is said as soon as it is known."""
        if isinstance(error, HiveError):
            self._warn(NO_MODEL_IN_REPL if isinstance(error, NoModelError) else f"✗ {error}")
            return
        loaded = self.state.loaded_config()
        trust = loaded.trust if loaded is not None else None
        notice = trust.notice() if trust is not None else None
        if notice:
            self.state.told.add(notice)
            self._warn(f"! {visible(notice, keep_newlines=True)}")
        waiting = [s.name for s in loaded.mcp_servers.enabled if s.awaiting_approval] if loaded else []
        if waiting and not (trust is not None and trust.asks):
            names = " ".join(waiting)
            self._warn(
                f"This project's files define MCP servers that hive has not started: {', '.join(waiting)}."
                f" See what they run with /mcp approve; start them with /mcp approve {names}"
            )

    def _warn(self, message: str) -> None:
        from prompt_toolkit.application import run_in_terminal

        say = functools.partial(self.console.print, Text(message, style="yellow"))
        if self.prompt.app.is_running:
            run_in_terminal(say)
        else:
            say()

    async def _greet(self) -> None:
        options = self.state.options
        resumed = (options.resume or options.continue_last) and await self._load_saved(options.resume)
        if not resumed:
            self.console.print(Text(f"hive {__version__} · /help for commands · Ctrl-D to exit", style="dim"))

    async def _load_saved(self, session_id: str | None) -> bool:
        """Reopen a saved session (this directory's last one without an id) and show it; False if none."""
        store = self.state.store
        if session_id is None:
            latest = await asyncio.to_thread(store.latest, self.state.cwd)
            if latest is None:
                self.console.print(Text("No saved session for this directory; starting a new one.", style="dim"))
                return False
            session_id = latest.id
        from hive_cli.repl.transcript import show_transcript

        loaded = store.claim(session_id)  # SessionBusy (exit 2) when another process is writing it
        await self.state.load(loaded)
        show_transcript(self.view, loaded)
        return True

    def _end(self) -> None:
        """SIGTERM or SIGHUP: cancel the run in progress (its tools stop) and leave."""
        self._leaving = True
        if self._running is not None:
            self._running.cancel()
        app = self.prompt.app
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(exception=EOFError)

    def _leave_if_asked(self) -> None:
        # A second Ctrl-C may land after the loop's check but before the prompt is up.
        if self._leaving:
            self.prompt.app.exit(exception=EOFError)

    def _catch_ctrl_c(self) -> None:
        """From now on SIGINT goes to ``_ctrl_c`` (which decides when it is handled, not when it was sent)."""
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self._ctrl_c)

    def _ctrl_c(self) -> None:
        """Ctrl-C outside the prompt: cancel the run in progress; with none, it counts like one at the prompt.

        Decided here, as the handler runs: a Ctrl-C read just as a run ended finds no run, and is not
        sent on to a session whose run is over.
        """
        if self._running is not None:
            self._running.cancel()
        elif self._second_ctrl_c():
            self._leaving = True
            if self.prompt.app.is_running:  # the prompt came up meanwhile: leave from there
                self.prompt.app.exit(exception=EOFError)

    def _second_ctrl_c(self) -> bool:
        now = time.monotonic()
        if now - self._last_ctrl_c < DOUBLE_CTRL_C_S:
            return True
        self._last_ctrl_c = now
        self.console.print(Text("(Ctrl-C again to exit)", style="dim"))
        return False

    async def _handle(self, line: str) -> None:
        if not line.strip():
            return
        if line.startswith("/mcp__"):
            from hive_cli.repl.mcp_prompts import expand_prompt

            expanded = await expand_prompt(line.strip(), self.state, self.view)
            if expanded is not None:
                await self._run_turn(expanded, attach=False)
            return
        if line.startswith("/") and (custom := find_command(line, self.state.cwd)) is not None:
            await self._run_custom(*custom)
            return
        if line.startswith("/"):
            await run_command(line.strip(), self.state, self.view)
            return
        await self._run_turn(line)

    async def _run_custom(self, command: CustomCommand, arguments: str) -> None:
        """Send a custom command's request, in its mode and (for this request only) with its model.

        A project's command changes the model and the mode only in a trusted project, and only towards plan.
        """
        from engine.custom_commands import command_settings

        config = await self.state.ready() if command.scope == "project" else None
        trusted = config is None or config.trust is None or config.trust.workspace.trusted
        settings = command_settings(command, trusted=trusted, current_mode=self.state.mode)
        if settings.ignored:
            why = "the project is not trusted (hive trust)" if not trusted else "it may only tighten"
            shown = visible(", ".join(settings.ignored))
            self.view.print(Text(f"  /{command.name}: ignored {shown}: {why}", style="yellow"))
        if settings.mode in ("plan", "work"):
            self.state.choose_mode("plan" if settings.mode == "plan" else "work")
        previous = self.state.model_name if settings.model else None
        if settings.model:
            self.state.choose_model(settings.model)
        try:
            await self._run_turn(command.expand(arguments))
        finally:
            if previous is not None and previous != "…":
                self.state.choose_model(previous)

    async def _run_turn(self, line: str, *, attach: bool = True) -> None:
        if self.state.session is None:
            await self._settle_trust()
            self.view.waiting("Starting: loading the configuration and the model library…")
        try:
            session = await self.state.ensure_session(self._approver(), title=line)
        finally:
            self.view.pause()
        if self._leaving:  # ended while the session was opening
            return
        for notice in self.state.take_notices():
            self.view.print(Text(f"! {visible(notice, keep_newlines=True)}", style="yellow"))
        prompt = await self._with_attachments(line, session) if attach else line
        prompt = "\n\n".join([*self.state.notes_for_model, prompt])
        self.state.notes_for_model.clear()
        self._hint_planning(line)
        self._running = session
        self._catch_ctrl_c()
        try:
            async for event in session.run_streaming(prompt):
                self.view.handle(event)
                if event.kind == "run_finished":
                    self.state.last_result = event.result
        finally:
            self._running = None
            self.view.pause()
        await self._offer_plan(session)

    async def _settle_trust(self) -> None:
        """Before the first model call: a project whose configuration would loosen hive is asked about, once."""
        if self._trust_asked:
            return
        self._trust_asked = True
        config = await self.state.ready()
        if config.trust is None or not config.trust.asks or self.state.options.yes:
            return
        from hive_cli.repl.trust_question import ask_trust

        if await ask_trust(config.trust, self.view):
            self.state.reload()

    async def _offer_plan(self, session: Session) -> None:
        """After a plan-mode request that wrote a todo list: approve it and it is executed step by step."""
        result = self.state.last_result
        if session.mode != "plan" or self._leaving or result is None or result.exit_reason != "completed":
            return
        from hive_cli.repl.plan_run import offer_plan, written_plan

        plan = written_plan(session, result)
        if plan is None:
            return
        self._running = session
        try:
            await offer_plan(self.state, self.view, session, plan)
        finally:
            self._running = None
            self._catch_ctrl_c()  # plan_run's own handler is gone

    def _hint_planning(self, line: str) -> None:
        """Once per REPL, in work mode: a request that looks like several steps gets a hint about /plan."""
        if self._hinted_planning or self.state.mode != "work":
            return
        from engine.planning.trigger import planning_trigger

        trigger = planning_trigger(line)
        if trigger is not None:
            self._hinted_planning = True
            self.view.print(
                Text(
                    f"  tip: this looks like several steps ({trigger.reason}); /plan first writes a "
                    "checklist you approve before hive works through it",
                    style="dim",
                )
            )

    async def _with_attachments(self, line: str, session: Session) -> str:
        """``line`` with the ``@`` files the read rules let through (an ask is asked), its images attached to the
        session's next prompt; says what was left out."""

        async def may_attach(name: str) -> str | None:
            judgement = session.judge_read(name)
            if judgement.verdict == "deny":
                return f"denied: {judgement.reason}"
            if judgement.verdict == "ask":
                return await self._ask_to_attach(name, judgement.reason)
            return None

        def resources(name: str) -> Awaitable[str] | None:
            from hive_cli.repl.mcp_prompts import resource_block, resource_mention

            found = resource_mention(name, session)
            return None if found is None else resource_block(*found)

        pasted = pasted_image(line, self.state.cwd)  # a whole line that names an image file: that image
        no_images = None if session.accepts_images() else no_vision_message(session.model)
        attached = await attach_mentions(
            line if pasted is None else f'@"{pasted}"', self.state.cwd, may_attach, resources, no_images=no_images
        )
        for note in attached.refused:
            self.view.print(Text("  " + note, style="yellow"))
        session.attach(attached.images)
        return attached.text

    async def _ask_to_attach(self, name: str, reason: str) -> str | None:
        from engine.events import ToolCall
        from engine.policy.gate import ApprovalRequest
        from engine.tools.files import ReadFileTool

        call = ToolCall(id="attach", name="read_file", arguments={"path": name})
        request = ApprovalRequest(call=call, spec=ReadFileTool().spec, summary=f"attach {name}", reason=reason)
        decision = await self._approver().decide(request)
        return None if decision.allowed else decision.reason or "not allowed"


def run_repl(options: ReplOptions) -> int:
    """Run the REPL until the user leaves; the exit status."""
    return asyncio.run(Repl(options).run())


def default_options(cwd: Path | None = None, **changes: object) -> ReplOptions:
    """REPL options for ``cwd`` (the current directory by default)."""
    return ReplOptions(cwd=(cwd or Path.cwd()).resolve(), **changes)  # type: ignore[arg-type]
