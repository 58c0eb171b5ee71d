"""The edit_file tool: exact string replacement, with a helpful answer when the text is not there."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from msgspec import Meta

from engine.safe_read import UnsafeFile, read_bounded
from engine.tools.args import ToolArgs
from engine.tools.base import ArgsTool, ToolContext, ToolResult, run_blocking
from engine.tools.edit_large import CHUNK_BYTES, LARGE_FILE_BYTES, edit_large
from engine.tools.edit_match import MAX_SHOWN_LINES, LineEndings, locate, numbered, snippet_bounds
from engine.tools.editor_files import EditorFileError
from engine.tools.files import (
    WriteRefused,
    count_lines,
    editor_text,
    missing_file_message,
    plural,
    write_text_atomic,
)
from engine.tools.hints import hint
from engine.tools.paths import with_path

WHOLE_TEXT_BYTES = 10 * 1024 * 1024
"""Files an editor holds (or a write interceptor judges) are edited as whole text, up to this size."""
_EXHAUSTIVE_WINDOWS = 2000
_PRESELECTED_WINDOWS = 200
_LINE_NUMBER_PREFIX = re.compile(r"^\s*\d+\t")


class EditFileArgs(ToolArgs, frozen=True):
    path: Annotated[str, Meta(description="The file to edit: absolute, or relative to the working directory.")]
    old_string: Annotated[
        str,
        Meta(
            description="The exact text to replace, copied from the file including indentation and line breaks, "
            "without read_file's line-number prefixes. It must occur exactly once unless replace_all is true; add "
            "surrounding lines to make it unique. An empty old_string creates a new file (or fills an empty one)."
        ),
    ]
    new_string: Annotated[str, Meta(description="The text to put in its place; empty to delete old_string.")]
    replace_all: Annotated[
        bool,
        Meta(
            description="Replace every occurrence of old_string (e.g. to rename something) instead of requiring "
            "exactly one."
        ),
    ] = False


class EditFileTool(ArgsTool[EditFileArgs]):
    """edit_file: replace an exact piece of text in a file."""

    name = "edit_file"
    description = (
        "Change a file by replacing an exact piece of text (old_string) with new text (new_string). Read the "
        "file with read_file first and copy old_string exactly, with its indentation, but without the "
        "line-number prefixes. old_string must occur exactly once unless replace_all is true; if it is not "
        "found, the error shows the closest region of the file so you can retry. Prefer this over write_file "
        "for changing existing files. An empty old_string creates a new file with new_string as its content."
    )
    args_model = EditFileArgs
    read_only = False

    def __init__(self, *, large_file_bytes: int = LARGE_FILE_BYTES, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.large_file_bytes = large_file_bytes
        """Files larger than this are edited by streaming (:mod:`engine.tools.edit_large`), never held whole."""
        self.chunk_bytes = chunk_bytes

    async def execute(self, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
        return await run_blocking(
            lambda: with_path(args.path, ctx, lambda path, shown: self._edit(path, shown, args, ctx))
        )

    def _edit(self, path: Path, shown: str, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
        if self._streams(path, ctx):
            if args.old_string == args.new_string:
                return ToolResult.error("old_string and new_string are identical; the edit would change nothing.")
            return edit_large(path, shown, args.old_string, args.new_string, args.replace_all, ctx, self.chunk_bytes)
        return _edit(path, shown, args, ctx)

    def _streams(self, path: Path, ctx: ToolContext) -> bool:
        """Whether the file is large enough to stream, and nobody needs its whole text (an editor, an interceptor)."""
        options = ctx.file_options
        if options.editor is not None or options.write_interceptor is not None:
            return False
        try:
            return path.is_file() and path.stat().st_size > self.large_file_bytes
        except OSError:
            return False


def _edit(path: Path, shown: str, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
    if args.old_string == args.new_string:
        return ToolResult.error("old_string and new_string are identical; the edit would change nothing.")
    if path.is_dir():
        return ToolResult.error(f"{shown} is a directory, not a file.")
    if not path.exists():
        if args.old_string:
            creating = hint(ctx, "write_file", ". To create a file, use write_file")
            return ToolResult.error(missing_file_message(path, shown) + creating + ".")
        return _write(
            path, shown, args.new_string, ctx, f"Created {shown} ({plural(count_lines(args.new_string), 'line')})."
        )
    try:
        data = read_bounded(path, limit=WHOLE_TEXT_BYTES)
    except UnsafeFile as refused:
        return ToolResult.error(f"{shown} was not edited: it {refused.reason}; edit_file changes regular text files.")
    if b"\0" in data:
        return ToolResult.error(f"{shown} is a binary file; edit_file only changes text files.")
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError:
        return ToolResult.error(f"{shown} is not UTF-8 text; edit_file only changes UTF-8 text files.")
    try:
        in_editor = editor_text(path, ctx.file_options)
    except EditorFileError as exc:
        return ToolResult.error(f"{shown} was not edited: the editor could not give it ({exc}).")
    content = content if in_editor is None else in_editor
    if not args.old_string:
        if content:
            return ToolResult.error(
                f"old_string is empty but {shown} already has content. Give the exact text to replace, or use "
                "write_file to replace the whole file."
            )
        return _write(path, shown, args.new_string, ctx, f"Filled the empty file {shown}.")
    return _replace(path, shown, content, args, ctx)


def _replace(path: Path, shown: str, content: str, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
    replacement = locate(content.__contains__, _endings(content), args.old_string, args.new_string)
    if replacement is None:
        return ToolResult.error(no_match_message(content, args.old_string, shown))
    count = content.count(replacement.old)
    if count > 1 and not args.replace_all:
        lines = ", ".join(str(n) for n in _occurrence_lines(content, replacement.old)[:20])
        return ToolResult.error(
            f"old_string occurs {count} times in {shown} (starting on lines {lines}). Include more surrounding "
            "lines to make it unique, or set replace_all to true to replace every occurrence."
        )
    updated = content.replace(replacement.old, replacement.new, -1 if args.replace_all else 1)
    start_line = content.count("\n", 0, content.index(replacement.old)) + 1
    new_lines = replacement.new.removesuffix("\n").count("\n")
    updated_lines = updated.split("\n")
    snippet = numbered(updated_lines, *snippet_bounds(start_line, start_line + new_lines, len(updated_lines)))
    summary = f"Edited {shown}: replaced {plural(count, 'occurrence')}{replacement.note}."
    return _write(path, shown, updated, ctx, f"{summary}\n{snippet}")


def _write(path: Path, shown: str, content: str, ctx: ToolContext, message: str) -> ToolResult:
    try:
        write_text_atomic(path, content, ctx.file_options)
    except WriteRefused as exc:
        return ToolResult.error(f"Write to {shown} refused: {exc}")
    except UnicodeEncodeError as exc:
        return ToolResult.error(f"The new content cannot be written as UTF-8: {exc}")
    return ToolResult(message)


def _endings(content: str) -> LineEndings:
    return LineEndings(lf=content.count("\n"), crlf=content.count("\r\n"))


def _occurrence_lines(content: str, old: str) -> list[int]:
    lines, line, position = [], 1, 0
    index = content.find(old)
    while index >= 0:
        line += content.count("\n", position, index)
        lines.append(line)
        position = index
        index = content.find(old, index + len(old))
    return lines


# --- when old_string is not found ------------------------------------------------------------


def no_match_message(content: str, old: str, shown: str) -> str:
    """Why ``old`` was probably not found in ``content``, with the closest region of the file."""
    lines = [line.removesuffix("\r") for line in content.split("\n")]
    wanted = [line.removesuffix("\r") for line in old.split("\n")]
    if len(wanted) > 1 and wanted[-1] == "":
        wanted.pop()
    message = f"old_string was not found in {shown}."
    if all(_LINE_NUMBER_PREFIX.match(line) for line in wanted if line.strip()):
        return (
            f"{message} It seems to include read_file's line-number prefixes (a number and a tab at the start "
            "of each line); leave them out and copy only the file's text."
        )
    start, ratio = _closest_window(lines, wanted)
    end = min(start + len(wanted) - 1, len(lines))
    region = numbered(lines, start, min(end, start + MAX_SHOWN_LINES - 1))
    if _same_ignoring_whitespace(lines[start - 1 : end], wanted):
        cause = (
            f"Lines {start}-{end} match when whitespace is ignored: the indentation or spacing differs (tabs "
            "versus spaces?). Copy the text exactly as read_file shows it."
        )
    elif ratio >= 0.5:
        cause = (
            f"The closest region is lines {start}-{end} ({ratio:.0%} similar). The file may have changed since "
            "you read it, or old_string has a mistake: read the file again and copy the exact text."
        )
    else:
        return f"{message} Nothing in the file is close to it; read the file again to check what it contains."
    return f"{message} {cause}\n{region}"


def _same_ignoring_whitespace(window: list[str], wanted: list[str]) -> bool:
    return [" ".join(line.split()) for line in window] == [" ".join(line.split()) for line in wanted]


def _closest_window(lines: list[str], wanted: list[str]) -> tuple[int, float]:
    """The 1-based first line of the window of ``len(wanted)`` lines most similar to ``wanted``, and the ratio."""
    size = len(wanted)
    starts: Sequence[int] = range(max(1, len(lines) - size + 1))
    normalized_lines = [" ".join(line.split()) for line in lines]
    normalized_wanted = [" ".join(line.split()) for line in wanted]
    for start in starts:
        if normalized_lines[start : start + size] == normalized_wanted:
            return start + 1, 1.0
    if len(starts) > _EXHAUSTIVE_WINDOWS:
        starts = _preselect(lines, wanted, len(starts))
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2("\n".join(wanted))
    best_start, best_ratio = 0, -1.0
    for start in starts:
        matcher.set_seq1("\n".join(lines[start : start + size]))
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best_start, best_ratio = start, ratio
    return best_start + 1, max(best_ratio, 0.0)


def _preselect(lines: list[str], wanted: list[str], windows: int) -> list[int]:
    # In long files, compare characters only in the windows sharing the most lines with old_string.
    wanted_set = {line.strip() for line in wanted if line.strip()}
    hits = [1 if line.strip() in wanted_set else 0 for line in lines]
    size = len(wanted)
    score = sum(hits[:size])
    scores = [score]
    for start in range(1, windows):
        score += hits[start + size - 1] - hits[start - 1]
        scores.append(score)
    ranked = sorted(range(windows), key=lambda start: -scores[start])
    return sorted(ranked[:_PRESELECTED_WINDOWS])
