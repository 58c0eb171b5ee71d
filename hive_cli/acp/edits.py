"""What an edit does to a file, as the editor shows it: the text before and after, for ACP's diff content."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import tool_diff_content
from acp.schema import FileEditToolCallContent

from engine.events import ToolCall
from engine.safe_read import UnsafeFile, read_bounded
from engine.tools.editor_files import EditorFileError, EditorFiles

EDIT_TOOLS = ("write_file", "edit_file")
LARGEST_SHOWN = 2 * 1024 * 1024
"""Files larger than this are not put into a diff (the editor would receive them whole, twice)."""


def target(call: ToolCall, cwd: Path) -> Path | None:
    """The absolute path a file tool's call names, or None when it names none."""
    raw = call.arguments.get("path")
    if not isinstance(raw, str) or not raw:
        return None
    path = Path(raw).expanduser()
    return path if path.is_absolute() else cwd / path


def current_text(path: Path, editor: EditorFiles | None = None) -> str | None:
    """The file's text now: "" when it does not exist, None when it is not a text file hive shows.

    With an ``editor`` that reads files (call it from a worker thread), a file hive would read is read as
    the editor's buffer holds it.
    """
    try:
        text = read_bounded(path, limit=LARGEST_SHOWN).decode("utf-8")
    except FileNotFoundError:
        return ""
    except (UnsafeFile, OSError, UnicodeDecodeError):
        return None
    if editor is None or not editor.reads:
        return text
    try:
        return editor.read_text(path)
    except EditorFileError:
        return None


def proposed_text(call: ToolCall, before: str) -> str | None:
    """The file's text if the call runs: a write's content, or an edit's replacement (None when it would fail)."""
    args: dict[str, Any] = call.arguments
    if call.name == "write_file":
        content = args.get("content")
        return content if isinstance(content, str) else None
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if not old:
        return new if not before else None
    if args.get("replace_all") is True:
        return before.replace(old, new) if old in before else None
    return before.replace(old, new, 1) if before.count(old) == 1 else None


def diff(path: Path, before: str | None, after: str | None) -> FileEditToolCallContent | None:
    """ACP diff content from ``before`` (empty: a new file) to ``after``; None when either is unknown or equal."""
    if before is None or after is None or before == after:
        return None
    return tool_diff_content(str(path), after, before or None)
