"""Describe a tool call for a person deciding whether it may run: a one-line summary and, for edits, a diff."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from engine.events import ToolCall
from engine.policy.subject_paths import resolve_for_rules
from engine.safe_read import read_bounded
from engine.tools.base import ToolContext
from engine.tools.paths import display_path

MAX_DIFF_SOURCE_BYTES = 1_000_000
"""Files larger than this are not diffed (the approver is told so)."""


def summarize_call(call: ToolCall) -> str:
    """The full command, the path (and size) of a write, the path of an edit, else the tool and its arguments."""
    args = call.arguments
    if call.name == "execute_command":
        return str(args.get("command", ""))
    if call.name == "write_file":
        content = str(args.get("content", ""))
        count = len(_lines(content))
        return f"write {args.get('path', '?')} ({count} line{'' if count == 1 else 's'})"
    if call.name == "edit_file":
        return f"edit {args.get('path', '?')}"
    if call.name == "web_fetch":
        return f"fetch {args.get('url', '?')}"
    if call.name == "web_search":
        return f"search the web for {json.dumps(args.get('query', ''), ensure_ascii=False)[:300]}"
    return f"{call.name} {json.dumps(args, ensure_ascii=False)[:500]}"


def diff_for_call(call: ToolCall, ctx: ToolContext) -> str | None:
    """A unified diff of what a ``write_file`` or ``edit_file`` call would change, from the file as it is now.

    None for other tools. When the change cannot be worked out (the file is binary or huge, or
    ``old_string`` is not there), the text says so instead of showing a diff. Blocking.
    """
    if call.name not in ("write_file", "edit_file"):
        return None
    raw = call.arguments.get("path")
    if not isinstance(raw, str):
        return None
    path = resolve_for_rules(raw, ctx)
    if path is None:
        return f"(cannot resolve {raw!r})"
    if _too_large(path):
        return f"({display_path(path, ctx)} is over {MAX_DIFF_SOURCE_BYTES // 1_000_000} MB: no diff is shown)"
    before = _current_text(path)
    if before is None:
        return f"({display_path(path, ctx)} is not a text file hive can diff)"
    after = _new_text(call, before)
    if after is None:
        return "(old_string is not in the file exactly once: the edit will fail)"
    shown = display_path(path, ctx)
    lines = difflib.unified_diff(
        _lines(before),
        _lines(after),
        fromfile=f"a/{shown}" if path.exists() else "/dev/null",
        tofile=f"b/{shown}",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _lines(text: str) -> list[str]:
    """``text``'s lines, each with its newline: only a newline ends one (a carriage return stays inside, to be shown)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _too_large(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > MAX_DIFF_SOURCE_BYTES
    except OSError:
        return False


def _current_text(path: Path) -> str | None:
    try:
        if not path.exists():
            return ""
        return read_bounded(path, limit=MAX_DIFF_SOURCE_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):  # OSError: also a refusal (too large, not a regular file)
        return None


def _new_text(call: ToolCall, before: str) -> str | None:
    args = call.arguments
    if call.name == "write_file":
        return str(args.get("content", ""))
    old = str(args.get("old_string", ""))
    new = str(args.get("new_string", ""))
    if not old:
        return new if not before else None
    count = before.count(old)
    if count == 0 or (count > 1 and not args.get("replace_all")):
        return None
    return before.replace(old, new)
