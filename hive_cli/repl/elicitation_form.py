"""A server's elicitation request at the terminal: a short form built from its schema, or a URL to open.

The server's name and message come first, the message as untrusted text (every control character shown,
never obeyed), then one line per field: its title and description, its type and bounds, its default and
its choices. The person answers with one key: **a** fills the form in (each field's default pre-filled;
Enter keeps it; a value the schema refuses is said why and given back to edit) and sends it, **d** declines, **Esc** cancels the form (the server is told it was
dismissed). Ctrl-C cancels the run, as it does at every question in a run. A URL request shows the URL:
hive never opens it; **a** tells the server the person will, **d** declines. Only a key pressed once
the question is on screen answers it: keys typed earlier are discarded.
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from rich.console import Group, RenderableType
from rich.text import Text

from engine.mcp.elicitation_question import (
    ElicitationAnswer,
    ElicitationQuestion,
    FormQuestion,
    QuestionField,
    UrlQuestion,
    Value,
    value_problem,
)
from hive_cli.repl.approver import Surface, answer_keys, ask_key
from hive_cli.terminal_text import visible

_CANCELLED = "\x00cancel"
"""What a field's prompt returns when the person pressed Esc (no typed text can hold a NUL)."""
_TRUE, _FALSE = ("yes", "y", "true"), ("no", "n", "false")
_KINDS = {"string": "text", "number": "number", "integer": "whole number", "boolean": "yes/no"}


async def ask_form(question: ElicitationQuestion, view: Surface) -> ElicitationAnswer:
    """Show the question on ``view`` and return the person's answer."""
    view.print(describe(question))
    keys = answer_keys({"a": "accept", "d": "decline", "escape": "cancel"})
    answer = await ask_key(_question_line(question), keys) or "cancel"
    if answer != "accept":
        view.print(Text(f"  {'declined' if answer == 'decline' else 'cancelled'}", style="dim"))
        return ElicitationAnswer(action="decline" if answer == "decline" else "cancel")
    if isinstance(question, UrlQuestion):
        return ElicitationAnswer(action="accept")
    content = await _fill(question, view)
    if content is None:
        view.print(Text("  cancelled", style="dim"))
        return ElicitationAnswer(action="cancel")
    return ElicitationAnswer(action="accept", content=content)


def describe(question: ElicitationQuestion) -> RenderableType:
    """The server, its message and (for a form) its fields, every character of theirs shown as it is."""
    header = Text("? ", style="bold magenta")
    header.append(f"MCP server {visible(question.server)}", style="bold")
    header.append(" asks you:" if isinstance(question, FormQuestion) else " asks you to open a URL:")
    parts: list[RenderableType] = [header, Text("  " + visible(question.message))]
    if isinstance(question, UrlQuestion):
        parts.append(Text("  " + visible(question.url), style="underline"))
        parts.append(Text("  hive does not open it: if you accept, open it yourself", style="dim"))
        return Group(*parts)
    parts += [Text("  " + _field_line(f)) for f in question.fields]
    return Group(*parts)


def _field_line(question_field: QuestionField) -> str:
    label = visible(question_field.label)
    if question_field.description:
        label += f" ({visible(question_field.description)})"
    details = [_KINDS.get(question_field.kind, "")]
    if question_field.choices:
        names = ", ".join(f"{i}={visible(c.title)}" for i, c in enumerate(question_field.choices, 1))
        details = [("one of " if question_field.kind == "choice" else "any of ") + names]
    details += _bounds(question_field)
    details.append("required" if question_field.required else "optional")
    if question_field.default is not None:
        details.append(f"default {visible(_shown(question_field, question_field.default))}")
    return f"{label}: " + ", ".join(d for d in details if d)


def _bounds(question_field: QuestionField) -> list[str]:
    bounds = []
    if question_field.format:
        bounds.append(visible(question_field.format))
    if question_field.min_length is not None or question_field.max_length is not None:
        bounds.append(f"{question_field.min_length or 0}–{question_field.max_length or '…'} characters")
    if question_field.minimum is not None or question_field.maximum is not None:
        low = "…" if question_field.minimum is None else f"{question_field.minimum:g}"
        high = "…" if question_field.maximum is None else f"{question_field.maximum:g}"
        bounds.append(f"{low}–{high}")
    return bounds


def _question_line(question: ElicitationQuestion) -> HTML:
    accept = "fill in and send" if isinstance(question, FormQuestion) and question.fields else "accept"
    return HTML(
        f"  <ansimagenta><b>waiting for you</b></ansimagenta> · <b>a</b> {accept} · <b>d</b> decline"
        " · <b>Esc</b> cancel "
    )


async def _fill(question: FormQuestion, view: Surface) -> dict[str, Value] | None:
    """Each field in turn until its value fits; None when the person cancelled."""
    content: dict[str, Value] = {}
    for question_field in question.fields:
        typed = "" if question_field.default is None else _shown(question_field, question_field.default)
        while True:
            typed = await _prompt(question_field, typed)
            if typed == _CANCELLED:
                return None
            if not typed.strip() and not question_field.required:
                break
            value = parse(question_field, typed)
            problem = "required" if not typed.strip() else value_problem(question_field, value)
            if problem is None:
                content[question_field.name] = value
                break
            view.print(Text(f"  {visible(question_field.label)}: {problem}", style="red"))
    return content


async def _prompt(question_field: QuestionField, default: str) -> str:
    """The field's line, ``default`` pre-filled (the field's default, or the text it refused a moment ago)."""
    session = PromptSession[str]()
    try:
        return await session.prompt_async(
            HTML(f"  <b>{_escape(visible(question_field.label))}</b>: "),
            default=default,
            key_bindings=_field_keys(),
            handle_sigint=False,
        )
    except EOFError:
        return _CANCELLED


def _field_keys() -> KeyBindings:
    bindings = answer_keys({}, interrupt=True)

    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(result=_CANCELLED)

    bindings.add("escape", eager=True)(_cancel)
    return bindings


def parse(question_field: QuestionField, typed: str) -> Any:
    """The value a typed answer stands for (returned as typed when it is none: the checks then say why)."""
    text = typed.strip()
    kind = question_field.kind
    if kind == "boolean":
        return True if text.lower() in _TRUE else False if text.lower() in _FALSE else text
    if kind in ("number", "integer"):
        return _number(text)
    if kind == "choice":
        return _choice(question_field, text)
    if kind == "choices":
        return [_choice(question_field, part.strip()) for part in text.split(",") if part.strip()]
    return typed


def _number(text: str) -> Any:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            continue
    return text


def _choice(question_field: QuestionField, text: str) -> str:
    """A choice by its number, its value or its title."""
    for index, choice in enumerate(question_field.choices, 1):
        if text in (str(index), choice.value, choice.title):
            return choice.value
    return text


def _shown(question_field: QuestionField, value: Value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value)
    return str(value)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
