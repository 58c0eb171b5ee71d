"""Inline approvals: the command (or the path with a coloured diff), then a question and one key.

y allows once; a allows for the rest of the session, showing the exact pattern it will remember;
p allows always in this project, saving the exact rules shown with your answers in the user config folder;
n denies, with an optional reason that goes back to the model; d denies always in this project
(saved the same way). p and d are offered only when the rules they save would decide the call, and a and p
never for a person-only request (a change to hive's configuration, git's hooks or the agents' instructions),
which says so instead. Ctrl-C cancels the run, as it does everywhere else in a run. Only a key pressed
once the question is on screen answers it: keys typed earlier are discarded.

The question is asked while a run is in progress, so its prompt leaves SIGINT alone: prompt-toolkit
would otherwise replace the run's handler with its own and remove it when the prompt closes, after
which Ctrl-C would do nothing for the rest of the run.

What is shown is what will happen: every control character, escape sequence, carriage return and
bidi override in a command, a diff or a rule is shown as a visible escape (``\\x1b[2K``, ``␍``,
``\\u202e``), never obeyed by the terminal, and a command is shown whole, however long.
"""

from __future__ import annotations

import asyncio
import os
import signal
import termios
import weakref
from collections.abc import Mapping
from contextlib import suppress
from typing import TYPE_CHECKING, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import HTML, AnyFormattedText
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from engine.events import ROOT_AGENT
from engine.mcp.elicitation_question import ElicitationAnswer, ElicitationQuestion
from engine.policy.gate import ApprovalRequest, Decision
from engine.policy.local_rules import LastingRule
from hive_cli.terminal_text import visible

if TYPE_CHECKING:
    from engine.mcp.sampling_request import SamplingQuestion

MAX_DIFF_LINES = 60


QUESTIONS = {
    "execute_command": "run this command?",
    "write_file": "write this file?",
    "edit_file": "make this edit?",
}


LOCAL_FILE = "your config folder"
PERSON_ONLY_NOTE = 'asked every time: --yes and "always" answers never cover this change'


def _answer_keys(request: ApprovalRequest) -> KeyBindings:
    answers = {"y": "yes", "n": "no", "escape": "no"}
    if request.remember:
        answers["a"] = "always"
    if request.lasting:
        answers["p"] = "project"
    if request.lasting_deny:
        answers["d"] = "deny-project"
    return answer_keys(answers)


def answer_keys(answers: Mapping[str, str], *, interrupt: bool = True) -> KeyBindings:
    """Each key of ``answers`` ends the question with its answer; Ctrl-C cancels the run (when ``interrupt``)."""
    bindings = _interrupt_keys() if interrupt else KeyBindings()
    for key, answer in answers.items():

        def _answer(event: KeyPressEvent, answer: str = answer) -> None:
            event.app.exit(result=answer)

        bindings.add(key, eager=True)(_answer)
    return bindings


async def ask_key(question: AnyFormattedText, keys: KeyBindings) -> str | None:
    """Put ``question`` and wait for one of ``keys`` (keys typed before it showed are discarded); None at end of input."""
    session = PromptSession[str]()
    try:
        return await session.prompt_async(
            question,
            key_bindings=keys,
            pre_run=lambda: discard_type_ahead(session.app.input),
            handle_sigint=False,
        )
    except EOFError:
        return None


def _interrupt(event: KeyPressEvent) -> None:
    """Ctrl-C arrives as a key while the question is up (raw mode); make it the signal it is everywhere else.

    The host's SIGINT handler cancels the run, and with it this question.
    """
    signal.raise_signal(signal.SIGINT)


def _interrupt_keys() -> KeyBindings:
    bindings = KeyBindings()
    bindings.add("c-c", eager=True)(_interrupt)
    return bindings


def discard_type_ahead(terminal: Input) -> None:
    """Forget every key pressed so far: those still in the terminal and those prompt-toolkit kept for later."""
    clear_typeahead(terminal)
    with suppress(OSError, termios.error, ValueError):
        fd = terminal.fileno()
        if os.isatty(fd):
            termios.tcflush(fd, termios.TCIFLUSH)


def question(request: ApprovalRequest) -> HTML:
    """The question put to the person, with the keys that answer it."""
    asked = QUESTIONS.get(request.call.name, "allow this call?")
    always = f" · <b>a</b> yes, always: <i>{_escape(visible(request.remember))}</i>" if request.remember else ""
    project = f" · <b>p</b> always in this project (saved in {LOCAL_FILE})" if request.lasting else ""
    deny = " · <b>d</b> deny always in this project" if request.lasting_deny else ""
    return HTML(
        f"  <ansimagenta><b>waiting for you</b></ansimagenta> · {asked} <b>y</b> yes, once{always}{project}"
        f" · <b>n</b> no{deny} "
    )


def _rules(rules: tuple[LastingRule, ...]) -> str:
    return visible(", ".join(rule.describe() for rule in rules))


def describe(request: ApprovalRequest) -> RenderableType:
    """What will happen if the call is allowed: the whole command, or the path and the diff, every character shown."""
    header = Text("? ", style="bold magenta")
    header.append(f"{request.call.name}", style="bold")
    if request.agent != ROOT_AGENT:
        header.append(f" for the {visible(request.agent)} agent")
    if request.reason:
        header.append(f"  ({visible(request.reason)})", style="dim")
    parts: list[RenderableType] = [header]
    if request.call.name == "execute_command":
        command = visible(request.summary, keep_newlines=True, keep_tabs=True)
        parts.append(Syntax(command, "bash", theme="ansi_dark", word_wrap=True, background_color="default"))
    else:
        parts.append(Text("  " + visible(request.summary)))
    if request.diff:
        parts += _diff(request.diff)
    if request.warning:
        parts.append(Text(f"  ! {visible(request.warning)}", style="bold yellow"))
    if request.person_only:
        parts.append(Text(f"  {PERSON_ONLY_NOTE}", style="dim"))
    if request.lasting:
        parts.append(Text(f"  p saves: allow {_rules(request.lasting)} (exact)", style="dim"))
    if request.lasting_deny:
        parts.append(Text(f"  d saves: deny {_rules(request.lasting_deny)} (exact)", style="dim"))
    return Group(*parts)


def _diff(diff: str) -> list[RenderableType]:
    """The diff's first lines, escaped before they are split: a carriage return is shown, not made a line break."""
    lines = visible(diff, keep_newlines=True, keep_tabs=True).split("\n")
    if lines and not lines[-1]:
        lines.pop()
    shown: list[RenderableType] = [
        Syntax("\n".join(lines[:MAX_DIFF_LINES]), "diff", theme="ansi_dark", background_color="default")
    ]
    if len(lines) > MAX_DIFF_LINES:
        shown.append(Text(f"  … {len(lines) - MAX_DIFF_LINES} more diff lines", style="dim"))
    return shown


class Surface(Protocol):
    """Where the question is shown: something that prints and can take its live region down meanwhile."""

    def print(self, renderable: RenderableType) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class StderrSurface:
    """``hive run`` at a terminal: the question goes to stderr, next to the tool log."""

    def __init__(self) -> None:
        from hive_cli.safe_console import SafeConsole

        self.console = SafeConsole(stderr=True, highlight=False)

    def print(self, renderable: RenderableType) -> None:
        self.console.print(renderable)

    def pause(self) -> None:
        return None

    def resume(self) -> None:
        return None


_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def one_question_at_a_time() -> asyncio.Lock:
    """One question on the terminal at a time (one lock per event loop, whichever approver asks): an approval, a
    server's form and a server's sampling request can come at once."""
    loop = asyncio.get_running_loop()
    lock = _locks.get(loop)
    if lock is None:
        lock = _locks[loop] = asyncio.Lock()
    return lock


class ReplApprover:
    """Asks the person at the terminal, pausing the live region while it does."""

    def __init__(self, view: Surface) -> None:
        self.view = view

    async def decide(self, request: ApprovalRequest) -> Decision:
        async with one_question_at_a_time():
            self.view.pause()
            try:
                self.view.print(describe(request))
                return await self._ask(request)
            finally:
                self.view.resume()

    async def _ask(self, request: ApprovalRequest) -> Decision:
        answer = await ask_key(question(request), _answer_keys(request)) or "no"
        if answer == "yes":
            return Decision(allowed=True, reason="allowed once by the user")
        if answer == "always":
            self.view.print(Text(f"  allowed for this session: {visible(request.remember or '')}", style="dim"))
            return Decision(allowed=True, reason="allowed for this session", remember=request.remember)
        if answer == "project":
            self.view.print(
                Text(
                    f"  allowed always in this project (saved in {LOCAL_FILE}): {_rules(request.lasting)}", style="dim"
                )
            )
            return Decision(allowed=True, reason="allowed always in this project", save="allow")
        if answer == "deny-project":
            self.view.print(
                Text(
                    f"  denied always in this project (saved in {LOCAL_FILE}): {_rules(request.lasting_deny)}",
                    style="dim",
                )
            )
            return Decision(allowed=False, reason="the user denied it always in this project", save="deny")
        if answer != "no":
            return Decision(allowed=False, reason="the user did not allow it")
        return Decision(allowed=False, reason=await self._reason() or "the user said no")

    async def elicit(self, question: ElicitationQuestion) -> ElicitationAnswer:
        """A server's request for a value (``engine.mcp.elicitation.ElicitationAsker``): its form (or URL) shown,
        the person's answer returned."""
        from hive_cli.repl.elicitation_form import ask_form

        async with one_question_at_a_time():
            self.view.pause()
            try:
                return await ask_form(question, self.view)
            finally:
                self.view.resume()

    async def allow_sampling(self, question: SamplingQuestion) -> bool:
        """An MCP server asks to use the model (``engine.mcp.sampling.SamplingAsker``): shown, then y or n."""
        from hive_cli.repl.sampling_question import ask_sampling

        async with one_question_at_a_time():
            return await ask_sampling(self.view, question)

    @staticmethod
    async def _reason() -> str:
        try:
            why = await PromptSession[str]().prompt_async(
                HTML("  reason for the model (optional): "), key_bindings=_interrupt_keys(), handle_sigint=False
            )
        except EOFError:
            return ""
        return why.strip()


def _escape(text: str | None) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
