"""The search tools glob_files and grep_files.

Both honour ``.gitignore`` and skip ``.git`` (see :mod:`engine.tools.ignore`), and run on ripgrep when
it is installed, otherwise on a pure-Python backend giving the same results
(:mod:`engine.tools.search_backend`). Paths in results are relative to the working directory when
inside it (absolute otherwise), so they can be passed straight to read_file. Results carry the file
behind every entry (``ToolResult.shown_files``), taken from the backends' structured matches, so
the policy can leave out files the read rules keep back without parsing the text.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from msgspec import Meta, Struct

from engine.tools.args import ToolArgs
from engine.tools.base import ArgsTool, ShownFiles, ToolContext, ToolResult
from engine.tools.files import plural
from engine.tools.globs import GlobMatcher, split_base
from engine.tools.grep_skips import Skipped, describe_skipped, find_skipped
from engine.tools.paths import describe_os_error, display_path, resolve_path
from engine.tools.ripgrep import RipgrepBackend, find_ripgrep
from engine.tools.search_backend import GrepError, GrepMatch, GrepQuery, PythonSearchBackend, SearchBackend

GLOB_LIMIT = 200
"""Files glob_files lists at most."""
GREP_LIMIT = 200
"""Matching lines grep_files shows at most."""
GREP_OUTPUT_BUDGET = 30_000
"""Characters of grep_files output at most."""
GREP_LINE_CHARS = 500
"""Longer matching lines are cut to this many characters."""


def default_search_backend(unsafe_dirs: Sequence[Path] = ()) -> SearchBackend:
    """Ripgrep when ``rg`` can be found (never in ``unsafe_dirs``), otherwise the pure-Python backend."""
    executable = find_ripgrep(unsafe_dirs)
    return RipgrepBackend(executable) if executable else PythonSearchBackend()


class GlobFilesArgs(ToolArgs, frozen=True):
    pattern: Annotated[
        str,
        Meta(
            min_length=1,
            description="A glob such as '**/*.py', 'src/*.ts', '*.{js,jsx}' or 'test_*.py'. Without '/' it matches "
            "file names at any depth; with '/' it matches paths relative to the search directory ('**' spans "
            "directories).",
        ),
    ]
    path: Annotated[str, Meta(description="The directory to search in (default: the working directory).")] = "."


class GlobFilesTool(ArgsTool[GlobFilesArgs]):
    """glob_files: files whose path matches a glob pattern, newest first."""

    name = "glob_files"
    description = (
        "Find files by name or path pattern, e.g. '**/*.py', 'src/**/test_*.ts' or 'Makefile'. Files ignored by "
        f".gitignore and the .git directory are skipped. Returns at most {GLOB_LIMIT} paths, most recently "
        "modified first. Use it to locate files; use grep_files to search their contents."
    )
    args_model = GlobFilesArgs
    read_only = True

    def __init__(self, backend: SearchBackend | None = None) -> None:
        """Search with ``backend`` (default: :func:`default_search_backend`)."""
        self.backend = backend or default_search_backend()

    async def execute(self, args: GlobFilesArgs, ctx: ToolContext) -> ToolResult:
        root_raw, pattern, anchored = _glob_root(args.pattern, args.path)
        target = await asyncio.to_thread(_resolve_directory, root_raw, ctx)
        if isinstance(target, ToolResult):
            return target
        root, shown = target.root, target.shown
        try:
            files = await self.backend.list_files(root)
        except GrepError as exc:
            return ToolResult.error(str(exc))
        try:
            matcher = GlobMatcher(pattern, anchored=anchored)
        except ValueError as exc:
            return ToolResult.error(str(exc))
        hits = [name for name in files if matcher.matches(name)]
        return await asyncio.to_thread(_glob_result, root, shown, hits, args.pattern)


def _glob_root(pattern: str, path: str) -> tuple[str, str, bool]:
    """Where to search and what to match: an absolute (or ``~``/``..``) pattern brings its own directory."""
    if not pattern.startswith(("/", "~", "../")):
        return path, pattern, False
    base, rest = split_base(pattern)
    if not base.startswith(("/", "~")):
        base = os.path.join(path, base)
    return base, rest, True


def _glob_result(root: Path, shown: str, hits: list[str], pattern: str) -> ToolResult:
    if not hits:
        return _nothing_shown(f"No files match {pattern!r} in {shown}.")
    ranked = sorted(hits, key=lambda name: (-_mtime(root / name), name))
    prefix = _prefix(shown)
    listed = [prefix + name for name in ranked[:GLOB_LIMIT]]

    def render(hidden: frozenset[str]) -> str:
        lines = [path for path in listed if path not in hidden]
        total = len(ranked) - (len(listed) - len(lines))
        if len(ranked) > GLOB_LIMIT:
            note = (
                f"(showing the {len(lines)} most recently modified of {total} files matching {pattern!r}; "
                "narrow the pattern or the path to see the others)"
            )
        else:
            note = f"({plural(len(lines), 'file')} matching {pattern!r}, most recently modified first)"
        return "\n".join([*lines, note])

    return ToolResult(render(frozenset()), shown_files=ShownFiles(tuple(listed), render))


def _nothing_shown(text: str) -> ToolResult:
    return ToolResult(text, shown_files=ShownFiles((), lambda hidden: text))


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class GrepFilesArgs(ToolArgs, frozen=True):
    pattern: Annotated[
        str,
        Meta(
            min_length=1,
            description="A regular expression (the syntax Python and Rust share), e.g. 'def \\w+_test', "
            "'TODO|FIXME' or 'import (os|sys)'. Escape characters meant literally, e.g. 'foo\\(' or '\\.get\\('.",
        ),
    ]
    path: Annotated[
        str, Meta(description="A directory to search recursively, or a single file (default: the working directory).")
    ] = "."
    glob: Annotated[
        str,
        Meta(
            description="Only search files matching this glob, e.g. '*.py', '*.{ts,tsx}' or 'src/**/*.rs' "
            "(empty: all files)."
        ),
    ] = ""
    ignore_case: Annotated[bool, Meta(description="Match letters regardless of case.")] = False


class GrepFilesTool(ArgsTool[GrepFilesArgs]):
    """grep_files: lines matching a regular expression, as path:line:text."""

    name = "grep_files"
    description = (
        "Search file contents for a regular expression. Returns matching lines as 'path:line:text', in path "
        f"order, at most {GREP_LIMIT}. Searches the working directory (or `path`) recursively, skipping binary "
        "files, files over 20 MiB and files ignored by .gitignore; when nothing matches it names the files it "
        "skipped. Narrow the search with `path` and `glob`. Use read_file with "
        "an offset to see the code around a match."
    )
    args_model = GrepFilesArgs
    read_only = True

    def __init__(self, backend: SearchBackend | None = None) -> None:
        """Search with ``backend`` (default: :func:`default_search_backend`)."""
        self.backend = backend or default_search_backend()

    async def execute(self, args: GrepFilesArgs, ctx: ToolContext) -> ToolResult:
        target = await asyncio.to_thread(_resolve_target, args.path, ctx)
        if isinstance(target, ToolResult):
            return target
        query = GrepQuery(args.pattern, args.ignore_case, GREP_LIMIT + 1)
        prefix = _prefix(display_path(target.root, ctx))
        try:
            files = await self._candidates(target, GlobMatcher(args.glob) if args.glob else None)
            matches = await self.backend.grep(target.root, query, files)
            if not matches:
                searched = files if files is not None else await self.backend.list_files(target.root)
                skipped = await asyncio.to_thread(find_skipped, target.root, searched)
                return _no_matches(args, target.shown, skipped, prefix)
        except ValueError as exc:  # GrepError, or an invalid glob
            return ToolResult.error(str(exc))
        return _grep_result(matches, prefix)

    async def _candidates(self, target: _Target, matcher: GlobMatcher | None) -> list[str] | None:
        """The files to search, relative to the root; None for "every file under the root"."""
        if target.file_name:
            return [target.file_name] if matcher is None or matcher.matches(target.file_name) else []
        if matcher is None:
            return None
        return [name for name in await self.backend.list_files(target.root) if matcher.matches(name)]


def _no_matches(args: GrepFilesArgs, shown: str, skipped: Skipped, prefix: str) -> ToolResult:
    """ "No matches", naming the files the search left out (binary, too large, unreadable) so none is taken as searched."""
    where = f"{shown} (files matching {args.glob!r})" if args.glob else shown
    said = f"No matches for {args.pattern!r} in {where}."

    def render(hidden: frozenset[str]) -> str:
        return said + describe_skipped(skipped, prefix, hidden)

    return ToolResult(render(frozenset()), shown_files=ShownFiles(tuple(prefix + p for p in skipped.paths), render))


def _grep_result(matches: list[GrepMatch], prefix: str) -> ToolResult:
    def render(hidden: frozenset[str]) -> str:
        return _grep_text([m for m in matches if prefix + m.path not in hidden], prefix)

    paths = tuple(prefix + match.path for match in matches)
    return ToolResult(render(frozenset()), shown_files=ShownFiles(paths, render))


def _grep_text(matches: list[GrepMatch], prefix: str) -> str:
    lines: list[str] = []
    size = 0
    for match in matches[:GREP_LIMIT]:
        text = match.text if len(match.text) <= GREP_LINE_CHARS else match.text[:GREP_LINE_CHARS] + "... [line cut]"
        entry = f"{prefix}{match.path}:{match.line}:{text}"
        if size + len(entry) > GREP_OUTPUT_BUDGET:
            break
        lines.append(entry)
        size += len(entry) + 1
    if len(lines) < len(matches):
        note = (
            f"(showing the first {len(lines)} matching lines; there are more: narrow the search with path, glob "
            "or a more specific pattern)"
        )
    else:
        files = len({match.path for match in matches})
        note = f"({plural(len(lines), 'matching line')} in {plural(files, 'file')})"
    return "\n".join([*lines, note])


class _Target(Struct, frozen=True):
    root: Path
    """The directory searched (the file's directory when a single file is searched)."""
    shown: str
    """The path as given, for messages."""
    file_name: str = ""
    """The file's name when a single file is searched."""


def _resolve_directory(raw: str, ctx: ToolContext) -> _Target | ToolResult:
    target = _resolve_target(raw, ctx)
    if isinstance(target, _Target) and target.file_name:
        return ToolResult.error(f"{target.shown} is a file; give a directory to search in.")
    return target


def _resolve_target(raw: str, ctx: ToolContext) -> _Target | ToolResult:
    try:
        path = resolve_path(raw, ctx)
    except ValueError as exc:
        return ToolResult.error(str(exc))
    shown = display_path(path, ctx)
    try:
        if path.is_dir():
            return _Target(path, shown)
        if path.is_file():
            return _Target(path.parent, shown, path.name)
    except OSError as exc:
        return ToolResult.error(describe_os_error(exc, shown))
    return ToolResult.error(f"Not found: {shown}")


def _prefix(shown_root: str) -> str:
    """What to put before a root-relative path so it reads relative to the working directory."""
    return "" if shown_root == "." else shown_root.rstrip("/") + "/"
