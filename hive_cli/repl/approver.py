"""Inline approvals: the command (or the path with a coloured diff) and one key: y, a or n.

y allows once; a allows for the rest of the session, showing the exact pattern it will remember;
n denies, with an optional reason that goes back to the model. Ctrl-C denies.
"""

from __future__ import annotations

from typing import Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from engine.policy.gate import ApprovalRequest, Decision

MAX_DIFF_LINES = 60


def _answer_keys(offer_always: bool) -> KeyBindings:
    bindings = KeyBindings()
    answers = {"y": "yes", "n": "no", "escape": "no", "c-c": "no"}
    if offer_always:
        answers["a"] = "always"

    for key, answer in answers.items():

        def _answer(event: KeyPressEvent, answer: str = answer) -> None:
            event.app.exit(result=answer)

        bindings.add(key, eager=True)(_answer)
    return bindings


def describe(request: ApprovalRequest) -> RenderableType:
    """What will happen if the call is allowed."""
    header = Text("? ", style="bold magenta")
    header.append(f"{request.call.name}", style="bold")
    if request.reason:
        header.append(f"  ({request.reason})", style="dim")
    parts: list[RenderableType] = [header]
    if request.call.name == "execute_command":
        parts.append(Syntax(request.summary, "bash", theme="ansi_dark", word_wrap=True, background_color="default"))
    else:
        parts.append(Text("  " + request.summary))
    if request.diff:
        lines = request.diff.splitlines()
        shown = "\n".join(lines[:MAX_DIFF_LINES])
        parts.append(Syntax(shown, "diff", theme="ansi_dark", background_color="default"))
        if len(lines) > MAX_DIFF_LINES:
            parts.append(Text(f"  … {len(lines) - MAX_DIFF_LINES} more diff lines", style="dim"))
    return Group(*parts)


class Surface(Protocol):
    """Where the question is shown: something that prints and can take its live region down meanwhile."""

    def print(self, renderable: RenderableType) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class StderrSurface:
    """``hive run`` at a terminal: the question goes to stderr, next to the tool log."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console(stderr=True, highlight=False)

    def print(self, renderable: RenderableType) -> None:
        self.console.print(renderable)

    def pause(self) -> None:
        return None

    def resume(self) -> None:
        return None


class ReplApprover:
    """Asks the person at the terminal, pausing the live region while it does."""

    def __init__(self, view: Surface) -> None:
        self.view = view

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.view.pause()
        try:
            self.view.print(describe(request))
            return await self._ask(request)
        finally:
            self.view.resume()

    async def _ask(self, request: ApprovalRequest) -> Decision:
        always = f" · <b>a</b> always: <i>{_escape(request.remember)}</i>" if request.remember else ""
        question = HTML(f"  <ansimagenta><b>hitl</b></ansimagenta> allow? <b>y</b> once{always} · <b>n</b> no ")
        try:
            answer = await PromptSession[str]().prompt_async(
                question, key_bindings=_answer_keys(bool(request.remember))
            )
        except (KeyboardInterrupt, EOFError):
            answer = "no"
        if answer == "yes":
            return Decision(allowed=True, reason="allowed once by the user")
        if answer == "always":
            self.view.print(Text(f"  allowed for this session: {request.remember}", style="dim"))
            return Decision(allowed=True, reason="allowed for this session", remember=request.remember)
        if answer != "no":
            return Decision(allowed=False, reason="the user did not allow it")
        try:
            why = await PromptSession[str]().prompt_async(HTML("  reason for the model (optional): "))
        except (KeyboardInterrupt, EOFError):
            why = ""
        return Decision(allowed=False, reason=why.strip() or "the user said no")


def _escape(text: str | None) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
