"""Results that show files answer to the read rules too: what a file's rules keep from the model, no result shows.

The gate judges the folder ``grep_files``, ``glob_files`` and ``repo_map`` search, but a file below it may be
denied (``**/secrets/**``) or need approval (``.env*``); ``load_skill`` is allowed, but the file it
reads may be a secret. These tools say which file is behind each entry of their result
(``ToolResult.shown_files``, built from structured matches such as ``rg --json``, never parsed
from ``path:line:`` text); this wrapper renders the result again without the files the read rules
would not let ``read_file`` read without asking, and says how many entries it left out.

A file ``load_skill`` reads outside the working directory (a skill root of the user's or hive's
own) is judged only by the read rules that match it, so secret patterns still apply but the
``external_directory`` default does not. A result of these tools that does not say which files it
shows, or that cannot be checked, is withheld (fail closed).
"""

from __future__ import annotations

import asyncio

from engine.events import ToolCall
from engine.policy.gate import Policy
from engine.policy.subjects import SKILL_FILE_PROBE
from engine.tools.base import ShownFiles, ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.registry import WrapperToolset

FILTERED_TOOLS = frozenset({"grep_files", "glob_files", "repo_map", "load_skill"})
_READ_SPEC = ToolSpec(name="read_file", description="", parameters={}, read_only=True)
_SKILL_SPEC = ToolSpec(name=SKILL_FILE_PROBE, description="", parameters={}, read_only=True)


class SearchResultFilter(WrapperToolset):
    """Removes from search and ``load_skill`` results the files ``policy`` would not let ``read_file`` read unasked."""

    def __init__(self, inner: Toolset, policy: Policy) -> None:
        super().__init__(inner)
        self.policy = policy

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        result = await self.inner.call(call, ctx)
        if call.name not in FILTERED_TOOLS or result.success is not True:
            return result
        shown = result.shown_files
        if shown is None:
            return ToolResult.error(f"The {call.name} result was withheld: it does not say which files it shows.")
        try:
            return await asyncio.to_thread(self._filter, result, shown, call.name == "load_skill", ctx)
        except Exception as exc:  # fail closed: an unchecked result must not reach the model
            return ToolResult.error(f"The {call.name} result was withheld: it could not be checked ({exc}).")

    def _filter(self, result: ToolResult, shown: ShownFiles, skill: bool, ctx: ToolContext) -> ToolResult:
        hidden = frozenset(path for path in dict.fromkeys(shown.paths) if not self._readable(path, skill, ctx))
        if not hidden:
            return result
        left_out = sum(1 for path in shown.paths if path in hidden)
        note = (
            f"({left_out} result {_lines(left_out)} left out: the permission rules deny those files or want approval "
            "before they are read; read_file on a file asks for it)"
        )
        return ToolResult(shown.render(hidden) + "\n" + note, result.success)

    def _readable(self, path: str, skill: bool, ctx: ToolContext) -> bool:
        spec = _SKILL_SPEC if skill else _READ_SPEC
        probe = ToolCall(id="result-filter", name=spec.name, arguments={"path": path})
        return self.policy.judge(spec, probe, ctx).verdict == "allow"


def _lines(count: int) -> str:
    return "line" if count == 1 else "lines"
