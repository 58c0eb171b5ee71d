"""Show a resumed conversation, so that nothing seems lost: your messages, hive's answers, its tool calls.

Everything shown came from outside hive (the person, the model, the tools): its control characters are shown
as escapes (terminal_text), never obeyed.
"""

from __future__ import annotations

import json

from rich.markdown import Markdown
from rich.text import Text

from engine.events import ToolCall
from engine.session_store import LoadedSession
from hive_cli.output.summaries import key_argument
from hive_cli.repl.view import ReplView
from hive_cli.terminal_text import visible, visible_markdown

SHOWN_MESSAGES = 40


def show_transcript(view: ReplView, loaded: LoadedSession) -> None:
    """Print the saved conversation (the last messages of a long one) and how it was restored."""
    messages = loaded.messages
    header = Text(f"Resumed session {loaded.info.id} · {len(messages)} messages", style="bold")
    view.print(header)
    if loaded.notice:
        view.print(Text(f"! {visible(loaded.notice)}", style="yellow"))
    hidden = max(0, len(messages) - SHOWN_MESSAGES)
    if hidden:
        view.print(Text(f"  … {hidden} earlier messages not shown", style="dim"))
    results = {str(m.get("tool_call_id")): str(m.get("content") or "") for m in messages if m.get("role") == "tool"}
    for message in messages[hidden:]:
        _show(view, message, loaded, results)
    view.print(Text("─" * 40, style="dim"))


def _show(view: ReplView, message: dict[str, object], loaded: LoadedSession, results: dict[str, str]) -> None:
    role = message.get("role")
    content = _text_of(message.get("content"))
    if role == "user":
        view.print(Text("› " + visible(content, keep_newlines=True, keep_tabs=True), style="bold cyan"))
    elif role == "assistant":
        if content.strip():
            view.print(Markdown(visible_markdown(content)))
        for raw in message.get("tool_calls") or ():  # type: ignore[attr-defined]
            view.print(_call_row(raw, loaded, results))


def _text_of(content: object) -> str:
    """A message's text; an image part is shown as ``[image]``, never as its base64."""
    if not isinstance(content, list):
        return str(content or "")
    parts = [p for p in content if isinstance(p, dict)]
    return "\n".join(str(p.get("text", "")) if p.get("type") != "image_url" else "[image]" for p in parts)


def _call_row(raw: dict[str, object], loaded: LoadedSession, results: dict[str, str]) -> Text:
    """One saved call: ✓ or ✗ when its outcome was recorded (with the first line of a failure), else a dot."""
    call_id = str(raw.get("id")) if isinstance(raw, dict) else ""
    succeeded = loaded.succeeded(call_id)
    if succeeded is None:
        return Text("  · " + _call_line(raw), style="dim")
    if succeeded:
        return Text("  ✓ " + _call_line(raw), style="dim")
    first = next((line for line in results.get(call_id, "").splitlines() if line.strip()), "")
    row = Text("  ✗ " + _call_line(raw), style="red")
    if first:
        row.append("  " + visible(first[:120]), style="dim")
    return row


def _call_line(raw: dict[str, object]) -> str:
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict):
        return "?"
    try:
        arguments = json.loads(str(function.get("arguments") or "{}"))
    except ValueError:
        arguments = {}
    call = ToolCall(id="", name=str(function.get("name")), arguments=arguments if isinstance(arguments, dict) else {})
    return f"{visible(call.name)} {key_argument(call)}".rstrip()
