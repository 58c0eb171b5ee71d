"""The file tools read_file, write_file and list_directory, and the atomic write edit_file shares."""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, BinaryIO

from msgspec import Meta

from engine.images import ImageError, load_image, looks_like_image
from engine.safe_read import UnsafeFile, open_checked
from engine.tools.args import ToolArgs
from engine.tools.base import ArgsTool, FileToolOptions, ToolContext, ToolResult, run_blocking
from engine.tools.editor_files import EditorFileError, EditorFiles
from engine.tools.hints import hint
from engine.tools.ignore import IgnoreRules
from engine.tools.paths import with_path, working_directory
from engine.tools.read_window import NotText, Window, read_window

READ_LINE_LIMIT = 2000
"""Lines read_file returns when no ``limit`` is given."""
LIST_LIMIT = 500
"""Entries list_directory shows at most."""
_SNIFF_BYTES = 8192


class WriteRefused(Exception):
    """The write interceptor refused a write; the message says why."""


class FolderGone(FileNotFoundError):
    """A folder that must exist (the working directory, or one above it) is gone: it is not made again."""


def write_text_atomic(path: Path, content: str, options: FileToolOptions, *, keep: Path | None = None) -> bool:
    """Write ``content`` (UTF-8) to ``path`` so that readers see the old or the new file, never a mix.

    Calls ``options.write_interceptor`` first (raising :class:`WriteRefused` with its message if it
    refuses), creates missing parent directories (never ``keep`` or a folder above it: :class:`FolderGone`
    when one of those is missing), writes and fsyncs a temporary file in the same
    directory, gives it the existing file's permission bits (or the umask's default for a new
    file), and renames it over ``path``. Returns True when the file did not exist before.
    When ``options.editor`` writes files, the editor writes it instead (after the same checks).
    """
    if options.write_interceptor is not None:
        try:
            options.write_interceptor(path, content)
        except Exception as exc:
            raise WriteRefused(str(exc) or type(exc).__name__) from exc
    data = content.encode("utf-8")
    make_parents(path.parent, keep)
    if options.editor is not None and options.editor.writes:
        return _write_in_editor(options.editor, path, content)
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    with replaced_atomically(path, mode) as handle:
        handle.write(data)
    return mode is None


@contextlib.contextmanager
def replaced_atomically(path: Path, mode: int | None, *, buffering: int = -1) -> Iterator[BinaryIO]:
    """A new temporary file beside ``path`` to write; when the block ends it is fsynced, given ``mode`` (None:
    the umask's default, as for any new file) and renamed over ``path``, and the folder is fsynced. If the block
    raises, nothing is left behind and ``path`` is as it was."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    # O_EXCL; 0o600 while the copy waits for a known mode (nobody reads it before), else 0o666 under the umask
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    descriptor = os.open(temp, flags, 0o666 if mode is None else 0o600)
    try:
        with os.fdopen(descriptor, "wb", buffering=buffering) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    fsync_directory(path.parent)


def _write_in_editor(editor: EditorFiles, path: Path, content: str) -> bool:
    created = not os.path.lexists(path)
    try:
        editor.write_text(path, content)
    except EditorFileError as exc:
        raise WriteRefused(f"the editor did not write it ({exc})") from exc
    return created


def editor_text(path: Path, options: FileToolOptions) -> str | None:
    """The text of ``path`` as the editor holds it (unsaved changes included); None when no editor offers it.

    Call it only once the file has been judged readable on disk. Raises :class:`EditorFileError`.
    """
    if options.editor is None or not options.editor.reads:
        return None
    return options.editor.read_text(path)


def make_parents(folder: Path, keep: Path | None) -> None:
    """Make ``folder`` and its missing parents, one at a time, but never ``keep`` or a folder above it.

    Each is made on its own (no ``parents=True``), so a ``keep`` removed meanwhile is not made again
    either: making the folder below it fails.
    """
    missing: list[Path] = []
    step = folder
    while not step.exists() and step != step.parent:
        missing.append(step)
        step = step.parent
    if keep is not None and any(m == keep or m in keep.parents for m in missing):
        raise FolderGone(f"{keep} no longer exists")
    for step in reversed(missing):
        step.mkdir(exist_ok=True)


def count_lines(text: str) -> int:
    """Lines in ``text``; a last line without a newline counts."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def missing_file_message(path: Path, shown: str, kind: str = "File") -> str:
    """The "not found" message for ``path``, naming similar files in its directory when there are any."""
    message = f"{kind} not found: {shown}"
    try:
        names = os.listdir(path.parent)
    except OSError:
        return f"{message} (its directory {path.parent} does not exist either)"
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    return f"{message}. Similar names in that directory: {', '.join(close)}" if close else message


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable, where the platform and file system allow it."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# --- read_file -------------------------------------------------------------------------------


class ReadFileArgs(ToolArgs, frozen=True):
    path: Annotated[str, Meta(description="The file to read: absolute, or relative to the working directory.")]
    offset: Annotated[
        int,
        Meta(
            ge=1,
            description="1-based number of the first line to return. Use it to continue where an earlier read stopped.",
        ),
    ] = 1
    limit: Annotated[int, Meta(ge=1, description=f"How many lines to return at most (default {READ_LINE_LIMIT}).")] = (
        READ_LINE_LIMIT
    )


class ReadFileTool(ArgsTool[ReadFileArgs]):
    """read_file: numbered lines of a text file, a window at a time."""

    name = "read_file"
    description = (
        "Read a text file or image. Lines come numbered like `cat -n`: the line number, a tab, then the line. "
        f"Returns up to {READ_LINE_LIMIT} lines starting at `offset` (1-based); when the file is longer the "
        "result ends with a note saying which offset reads the rest. Read a file before you edit it, and copy "
        "text for edit_file from this output without the number-and-tab prefix. Other binary files are not shown. "
        "For directories use list_directory; to search, grep_files or glob_files."
    )
    args_model = ReadFileArgs
    read_only = True

    async def execute(self, args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
        return await run_blocking(lambda: with_path(args.path, ctx, lambda path, shown: _read(path, shown, args, ctx)))


def _read(path: Path, shown: str, args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
    if path.is_dir():
        listing = hint(ctx, "list_directory", "; use list_directory to see its entries")
        return ToolResult.error(f"{shown} is a directory, not a file{listing}.")
    if not os.path.lexists(path):
        return ToolResult.error(missing_file_message(path, shown))
    if looks_like_image(path.name):
        return _read_image(path, shown)
    try:
        handle = open_checked(path)
    except UnsafeFile as refused:
        return ToolResult.error(f"{shown} was not read: it {refused.reason}.")
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if b"\0" in handle.read(_SNIFF_BYTES):
            return ToolResult.error(
                f"{shown} is a binary file ({size} bytes); its content is not shown.{_inspect(ctx)}"
            )
        try:
            in_editor = editor_text(path, ctx.file_options)
        except EditorFileError as exc:
            return ToolResult.error(f"{shown} was not read: the editor could not give it ({exc}).")
        if in_editor is not None:
            data = in_editor.encode("utf-8", "surrogatepass")
            size = len(data)
            return _window_result(read_window(io.BytesIO(data), size, args.offset, args.limit), shown, size, ctx)
        handle.seek(0)
        window = read_window(handle, size, args.offset, args.limit)
    return _window_result(window, shown, size, ctx)


def _read_image(path: Path, shown: str) -> ToolResult:
    """An image file as an image for the model (downscaled; the loop leaves it out for a model without vision)."""
    try:
        image = load_image(path)
    except ImageError as problem:
        return ToolResult.error(f"{shown} was not read as an image: {problem}.")
    return ToolResult(f"{shown}: an image, {image.describe()}.", images=(image.part(),))


def _inspect(ctx: ToolContext) -> str:
    return hint(ctx, "execute_command", " execute_command can look into it (e.g. `file`, `xxd | head`).")


def _window_result(window: Window | NotText, shown: str, size: int, ctx: ToolContext) -> ToolResult:
    if isinstance(window, NotText):
        if window.reason == "binary":
            return ToolResult.error(
                f"{shown} is a binary file ({size} bytes, a NUL byte on line {window.line}); its content is not "
                f"shown.{_inspect(ctx)}"
            )
        return ToolResult.error(
            f"{shown} is not UTF-8 text (invalid bytes on line {window.line}); it is treated as binary "
            f"({size} bytes) and not shown."
        )
    first, total = window.first, window.total
    if total == 0:
        return ToolResult(f"{shown} is empty.")
    if total is not None and first > total:
        return ToolResult.error(f"offset={first} is past the end of {shown}, which has {total} lines.")
    last = first + len(window.lines) - 1
    notes = []
    if window.more and total is None:
        notes.append(f"(lines {first}-{last}; more follow: use offset={last + 1} to read more)")
    elif window.more:
        notes.append(f"(lines {first}-{last} of {total}; use offset={last + 1} to read more)")
    elif first > 1:
        notes.append(f"(lines {first}-{last} of {total})")
    if window.crlf:
        notes.append("(the file uses CRLF line endings; the carriage returns are not shown)")
    return ToolResult("\n".join(window.lines + tuple(notes)))


# --- write_file ------------------------------------------------------------------------------


class WriteFileArgs(ToolArgs, frozen=True):
    path: Annotated[str, Meta(description="The file to write: absolute, or relative to the working directory.")]
    content: Annotated[str, Meta(description="The complete new content of the file.")]


class WriteFileTool(ArgsTool[WriteFileArgs]):
    """write_file: create a file or replace all of it, atomically."""

    name = "write_file"
    description = (
        "Create a file, or replace the whole content of an existing one. Missing parent directories are "
        "created; an existing file keeps its permissions. To change part of an existing file use edit_file "
        "instead: it is safer and cheaper. Before overwriting a file, read it so nothing is lost."
    )
    args_model = WriteFileArgs
    read_only = False

    async def execute(self, args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
        return await run_blocking(
            lambda: with_path(args.path, ctx, lambda path, shown: _write(path, shown, args.content, ctx))
        )


def _write(path: Path, shown: str, content: str, ctx: ToolContext) -> ToolResult:
    if path.is_dir():
        return ToolResult.error(f"{shown} is a directory; give the path of a file.")
    try:
        created = write_text_atomic(path, content, ctx.file_options, keep=working_directory(ctx))
    except FolderGone as exc:
        return ToolResult.error(f"{shown} was not written: {exc}, and it is not made again.")
    except WriteRefused as exc:
        return ToolResult.error(f"Write to {shown} refused: {exc}")
    except UnicodeEncodeError as exc:
        return ToolResult.error(f"The content cannot be written as UTF-8: {exc}")
    size = len(content.encode("utf-8"))
    how = "created a new file" if created else "overwrote the existing file"
    return ToolResult(f"Wrote {plural(count_lines(content), 'line')} ({size} bytes) to {shown} ({how}).")


# --- list_directory --------------------------------------------------------------------------


class ListDirectoryArgs(ToolArgs, frozen=True):
    path: Annotated[
        str,
        Meta(
            description="The directory to list: absolute, or relative to the working directory (default: the "
            "working directory itself)."
        ),
    ] = "."


class ListDirectoryTool(ArgsTool[ListDirectoryArgs]):
    """list_directory: the entries of one directory, without what .gitignore excludes."""

    name = "list_directory"
    description = (
        "List the entries of one directory: subdirectories first (with a trailing '/'), then files, each "
        "sorted by name. Entries ignored by .gitignore and the .git directory are left out. To find files "
        "by name across subdirectories use glob_files."
    )
    args_model = ListDirectoryArgs
    read_only = True

    async def execute(self, args: ListDirectoryArgs, ctx: ToolContext) -> ToolResult:
        return await run_blocking(lambda: with_path(args.path, ctx, lambda path, shown: _list(path, shown, ctx)))


def _list(path: Path, shown: str, ctx: ToolContext) -> ToolResult:
    if not path.exists():
        return ToolResult.error(missing_file_message(path, shown, "Directory"))
    if not path.is_dir():
        reading = hint(ctx, "read_file", "; use read_file to read it")
        return ToolResult.error(f"{shown} is a file, not a directory{reading}.")
    rules = IgnoreRules()
    directories: list[str] = []
    files: list[str] = []
    ignored = 0
    with os.scandir(path) as scan:
        entries = sorted(scan, key=lambda entry: entry.name)
    for entry in entries:
        if entry.name == ".git":
            continue
        is_dir = entry.is_dir()
        if rules.is_ignored(path / entry.name, is_dir):
            ignored += 1
            continue
        (directories if is_dir else files).append(_describe_entry(entry, is_dir))
    listing = directories + files
    hidden = f"{ignored} ignored by .gitignore not shown" if ignored else ""
    if not listing:
        return ToolResult(f"{shown} is empty" + (f" ({hidden})" if hidden else "") + ".")
    summary = f"{plural(len(directories), 'directory', 'directories')}, {plural(len(files), 'file', 'files')}"
    if len(listing) > LIST_LIMIT:
        summary = f"showing the first {LIST_LIMIT} of {len(listing)} entries: {summary}"
    summary += f"; {hidden}" if hidden else ""
    return ToolResult("\n".join(listing[:LIST_LIMIT]) + f"\n({summary})")


def _describe_entry(entry: os.DirEntry[str], is_dir: bool) -> str:
    name = entry.name + ("/" if is_dir else "")
    if entry.is_symlink():
        with contextlib.suppress(OSError):
            name += f" -> {os.readlink(entry.path)}"
    return name


def plural(count: int, one: str, many: str = "") -> str:
    """``1 line``, ``2 lines``: the count with the right form of the noun (``many`` defaults to ``one + "s"``)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"
