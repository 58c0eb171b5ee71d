"""Renderers for ``hive run``: text, json and stream-json. Each handles events one kind at a time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct

if TYPE_CHECKING:
    from engine.events import Event, RunResult


class RunInfo(Struct, frozen=True, kw_only=True):
    """What a renderer knows about the run before it starts."""

    session_id: str | None
    model: str
    cwd: str
    mode: str
    sandbox: str = ""
    """What confines the shell commands, in one line."""
    notices: tuple[str, ...] = ()
    """What the person must be told once (e.g. that the sandbox cannot start)."""


class Renderer(Protocol):
    """Shows a run: every event as it comes, then the result."""

    def handle(self, event: Event) -> None: ...

    def finish(self, result: RunResult, duration_s: float, extra: Mapping[str, Any] | None = None) -> None:
        """Show the result; ``extra`` holds fields the headless contract adds or overrides (``structured``...)."""
        ...


def make_renderer(output_format: str, info: RunInfo) -> Renderer:
    """The renderer for ``--output-format``."""
    if output_format == "json":
        from hive_cli.output.json_output import JsonRenderer

        return JsonRenderer(info)
    if output_format == "stream-json":
        from hive_cli.output.stream_json import StreamJsonRenderer

        return StreamJsonRenderer(info)
    from hive_cli.output.text import TextRenderer

    return TextRenderer(info)
