"""The ``repo_map`` tool: the ranked outline of a folder's definitions, for the model to find its way.

The result names every file it mapped (``ToolResult.shown_files``), so the read rules' filter
(:mod:`engine.policy.search_filter`) renders it again without the files the rules keep from the model:
their definitions are not shown and their references do not count in the ranking.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from msgspec import Meta
from msgspec.structs import replace

from engine.repomap.build import MappedFiles, RepoMap, map_files, render_map
from engine.tools.args import ToolArgs
from engine.tools.base import ArgsTool, ShownFiles, ToolContext, ToolResult
from engine.tools.paths import describe_os_error, display_path, resolve_path

TOOL_BUDGET_TOKENS = 4096
"""Tokens the map in a result takes at most."""
LANGUAGES_SHOWN = "Python, JavaScript, TypeScript, Go, Rust and Java"


class RepoMapArgs(ToolArgs, frozen=True):
    path: Annotated[str, Meta(description="The folder to map (default: the working directory).")] = "."


class RepoMapTool(ArgsTool[RepoMapArgs]):
    """repo_map: the definitions of a folder's source files, the most used across files first."""

    name = "repo_map"
    description = (
        "Outline a folder's code: the classes, functions, methods and types of its source files, those other "
        "files use most first, as 'line: signature' under each file. Use it first in an unfamiliar repository."
    )
    args_model = RepoMapArgs
    read_only = True

    def __init__(self, budget_tokens: int = TOOL_BUDGET_TOKENS) -> None:
        self.budget_tokens = budget_tokens

    async def execute(self, args: RepoMapArgs, ctx: ToolContext) -> ToolResult:
        try:
            folder = resolve_path(args.path, ctx)
        except ValueError as exc:
            return ToolResult.error(str(exc))
        shown = display_path(folder, ctx)
        if not folder.is_dir():
            return ToolResult.error(f"{shown} is not a folder; give a folder to map.")
        try:
            mapped = await asyncio.to_thread(map_files, folder, _everything)
        except OSError as exc:
            return ToolResult.error(describe_os_error(exc, shown))
        return await asyncio.to_thread(self._result, mapped, shown)

    def _result(self, mapped: MappedFiles, shown: str) -> ToolResult:
        from engine.context.tokens import counter_for

        tokens = counter_for("").text
        prefix = "" if shown == "." else shown.rstrip("/") + "/"
        named = replace(mapped, tags={prefix + path: tags for path, tags in mapped.tags.items()})

        def render(hidden: frozenset[str]) -> str:
            return _text(named, render_map(named, self.budget_tokens, tokens, hidden), shown)

        return ToolResult(render(frozenset()), shown_files=ShownFiles(tuple(named.tags), render))


def _everything(relative: str) -> bool:
    """The tool maps every file; the read rules' filter then leaves out what they keep from the model."""
    return True


def _text(mapped: MappedFiles, repo_map: RepoMap, shown: str) -> str:
    if not repo_map.total:
        return f"No definitions found in {shown} (no {LANGUAGES_SHOWN} files, or none the map could read)."
    notes = [f"({repo_map.shown} of {repo_map.total} definitions in {repo_map.files} files, most used first"]
    if mapped.skipped:
        notes.append(f"; {mapped.skipped} files skipped: too large, binary or unreadable")
    if mapped.limited:
        notes.append("; the folder has more files than one map reads: map a subfolder for the rest")
    return repo_map.text + "\n" + "".join(notes) + ")"
