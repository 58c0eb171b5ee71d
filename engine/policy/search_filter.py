"""Search results answer to the read rules too: what a file's rules keep from the model, a search does not show.

The gate judges the folder ``grep_files`` and ``glob_files`` search, but a file below it may be
denied (``**/secrets/**``) or need approval (``.env*``). This wrapper leaves such files' lines out of
the result and says how many it left out, so a search never shows what ``read_file`` would refuse
or ask about.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from engine.events import ToolCall
from engine.policy.gate import Policy
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.registry import WrapperToolset

_GREP_LINE = re.compile(r"^(.+?):\d+:")
_READ_SPEC = ToolSpec(name="read_file", description="", parameters={}, read_only=True)


def _grep_path(line: str) -> str | None:
    match = _GREP_LINE.match(line)
    return match.group(1) if match else None


def _glob_path(line: str) -> str | None:
    return line or None


_PATH_OF: dict[str, Callable[[str], str | None]] = {"grep_files": _grep_path, "glob_files": _glob_path}


class SearchResultFilter(WrapperToolset):
    """Removes from grep and glob results the files ``policy`` would not let ``read_file`` read without asking."""

    def __init__(self, inner: Toolset, policy: Policy) -> None:
        super().__init__(inner)
        self.policy = policy

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        result = await self.inner.call(call, ctx)
        path_of = _PATH_OF.get(call.name)
        if path_of is None or result.success is not True:
            return result
        return await asyncio.to_thread(self._filter, result, path_of, ctx)

    def _filter(self, result: ToolResult, path_of: Callable[[str], str | None], ctx: ToolContext) -> ToolResult:
        readable: dict[str, bool] = {}
        kept: list[str] = []
        left_out = 0
        for line in result.output.split("\n"):
            path = None if _is_note(line) else path_of(line)
            if path is not None and path not in readable:
                readable[path] = self._readable(path, ctx)
            if path is None or readable[path]:
                kept.append(line)
            else:
                left_out += 1
        if not left_out:
            return result
        kept.append(
            f"({left_out} result line{'s' if left_out != 1 else ''} left out: the permission rules deny those files "
            "or want approval before they are read; read_file on a file asks for it)"
        )
        return ToolResult("\n".join(kept), result.success)

    def _readable(self, path: str, ctx: ToolContext) -> bool:
        probe = ToolCall(id="search-filter", name="read_file", arguments={"path": path})
        return self.policy.judge(_READ_SPEC, probe, ctx).verdict == "allow"


def _is_note(line: str) -> bool:
    return line.startswith("(") and line.endswith(")")
