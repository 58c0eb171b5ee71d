"""Show a resumed conversation, so that nothing seems lost: your messages, hive's answers, its tool calls."""

from __future__ import annotations

import json

from rich.markdown import Markdown
from rich.text import Text

from engine.events import ToolCall
from engine.sessions import LoadedSession
from hive_cli.output.summaries import key_argument
from hive_cli.repl.view import ReplView

SHOWN_MESSAGES = 40


def show_transcript(view: ReplView, loaded: LoadedSession) -> None:
    """Print the saved conversation (the last messages of a long one) and how it was restored."""
    messages = loaded.messages
    header = Text(f"Resumed session {loaded.info.id} · {len(messages)} messages", style="bold")
    view.print(header)
    if loaded.dropped_lines:
        note = f"  {loaded.dropped_lines} damaged line(s) at the end of the file (a write cut short) were dropped."
        view.print(Text(note, style="yellow"))
    hidden = max(0, len(messages) - SHOWN_MESSAGES)
    if hidden:
        view.print(Text(f"  … {hidden} earlier messages not shown", style="dim"))
    for message in messages[hidden:]:
        _show(view, message)
    view.print(Text("─" * 40, style="dim"))


def _show(view: ReplView, message: dict[str, object]) -> None:
    role = message.get("role")
    content = str(message.get("content") or "")
    if role == "user":
        view.print(Text("› " + content, style="bold cyan"))
    elif role == "assistant":
        if content.strip():
            view.print(Markdown(content))
        for raw in message.get("tool_calls") or ():  # type: ignore[attr-defined]
            view.print(Text("  · " + _call_line(raw), style="dim"))


def _call_line(raw: dict[str, object]) -> str:
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict):
        return "?"
    try:
        arguments = json.loads(str(function.get("arguments") or "{}"))
    except ValueError:
        arguments = {}
    call = ToolCall(id="", name=str(function.get("name")), arguments=arguments if isinstance(arguments, dict) else {})
    return f"{call.name} {key_argument(call)}".rstrip()
