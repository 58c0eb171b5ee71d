"""Describe a tool call for a person deciding whether it may run."""

from __future__ import annotations

import json

from engine.events import ToolCall


def summarize_call(call: ToolCall) -> str:
    """The full command, the path (and size) of a write, the path and strings of an edit, else the arguments."""
    args = call.arguments
    if call.name == "execute_command":
        return str(args.get("command", ""))
    if call.name == "write_file":
        content = str(args.get("content", ""))
        return f"write {args.get('path', '?')} ({content.count(chr(10)) + 1} lines)"
    if call.name == "edit_file":
        return f"edit {args.get('path', '?')}"
    return f"{call.name} {json.dumps(args, ensure_ascii=False)[:500]}"
