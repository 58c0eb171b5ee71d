"""Very large tool results are cut on entry: the model gets the head and the tail, and the file with all of it.

A result is cut as the model would see it (after the guards and the read rules), so the saved file
holds nothing the model could not have been shown. The limit is asked for at every call, since it
follows the model's window.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from engine.events import ToolCall
from engine.tools.base import ToolContext, ToolResult, Toolset
from engine.tools.output import CommandOutput
from engine.tools.registry import WrapperToolset

WINDOW_SHARE = 0.25
"""A result may fill at most this share of the window (at about four characters a token)."""
CHARS_PER_TOKEN = 4


class ResultCap(WrapperToolset):
    """Cuts results longer than ``limit()`` characters to head and tail, saving the whole text beside the project."""

    def __init__(self, inner: Toolset, limit: Callable[[], int]) -> None:
        super().__init__(inner)
        self.limit = limit

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        result = await self.inner.call(call, ctx)
        limit = self.limit()
        if len(result.output) <= limit:
            return result
        return replace(result, output=await cut_output(result.output, limit, call.name, ctx), shown_files=None)


async def cut_output(text: str, limit: int, tool: str, ctx: ToolContext) -> str:
    """``text`` as head, tail and where the whole of it is saved (``ctx.data_dir``'s ``outputs`` folder)."""
    output = CommandOutput(
        ctx.data_dir / "outputs",
        limit,
        shown_from=ctx.cwd,
        kind=_file_safe(tool),
        file_cap=ctx.file_options.saved_output_max_bytes,
    )
    await output.add(text.encode())
    await output.close()
    return output.render()


def result_limit(window_tokens: int, max_chars: int) -> int:
    """The longest result for a window of ``window_tokens``: its share of the window, at most ``max_chars``."""
    return min(max_chars, int(window_tokens * WINDOW_SHARE * CHARS_PER_TOKEN))


def _file_safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40] or "tool"
