"""The tool timeline: one line per call, live while it runs, printed once with its outcome when it ends.

A running call shows a spinner, its name and key argument, its latest status and a progress bar when
the tool reports numbers. A finished call becomes one line with a check or a cross, its run time and,
when it asked, how long it waited for the person's decision, how many secrets were redacted from
its result, plus a short, dim preview of what it returned. Nested calls are indented under their
parent by their scope depth (a call inside a tool, or a sub-agent's call, looks like any other).
"""

from __future__ import annotations

import textwrap
import time

from msgspec import Struct, field
from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from engine.events import ToolCall, ToolOutcome, ToolProgress
from engine.redaction.marker import redaction_note
from hive_cli.output.summaries import key_argument, size_note, timing
from hive_cli.terminal_text import visible

PREVIEW_LINES = 2
PREVIEW_WIDTH = 100


class RunningCall(Struct):
    """A call in flight, as the timeline shows it."""

    call_id: str
    name: str
    detail: str
    depth: int
    started: float = field(default_factory=time.monotonic)
    status: str = ""
    progress: float | None = None
    total: float | None = None


def _indent(depth: int) -> str:
    return "  " * max(depth - 1, 0)


class Timeline:
    """Calls in flight (for the live region) and the lines of calls that ended (for the scrollback)."""

    def __init__(self) -> None:
        self.running: dict[str, RunningCall] = {}
        self._spinner = Spinner("dots", style="cyan")

    def start(self, call: ToolCall, depth: int = 1, shown: str | None = None) -> None:
        """A call began; ``shown`` names it instead of the tool's name ("Calling explore Agent")."""
        name = shown or call.name
        self.running[call.id] = RunningCall(call_id=call.id, name=name, detail=key_argument(call), depth=depth)

    def update(self, event: ToolProgress) -> None:
        """A running call reported progress."""
        running = self.running.get(event.call_id)
        if running is None:
            return
        running.status = event.status or running.status
        running.progress, running.total = event.progress, event.total

    def decided(self, call_id: str) -> None:
        """A person answered the call's question: its clock starts now, the wait is not run time."""
        running = self.running.get(call_id)
        if running is not None:
            running.started = time.monotonic()

    def finish(self, outcome: ToolOutcome) -> RenderableType:
        """A call ended: forget it and return the line (with a preview) to print."""
        running = self.running.pop(outcome.call.id, None)
        depth = running.depth if running else 1
        detail = running.detail if running else key_argument(outcome.call)
        name = running.name if running else outcome.call.name
        took = ", ".join(part for part in (timing(outcome), size_note(outcome)) if part)
        return finished_line(name, detail, outcome.success, took, outcome.output, depth)

    def live(self) -> RenderableType | None:
        """The running calls, for the live region."""
        if not self.running:
            return None
        return Group(*(self._running_line(call) for call in self.running.values()))

    def _running_line(self, call: RunningCall) -> RenderableType:
        elapsed = time.monotonic() - call.started
        frame = self._spinner.render(time.monotonic())
        line = Text(_indent(call.depth) + " ")
        line.append_text(frame if isinstance(frame, Text) else Text(str(frame)))
        line.append(" ")
        line.append(call.name, style="bold")
        if call.detail:
            line.append(" " + call.detail)
        line.append(f"  {elapsed:.0f}s", style="dim")
        line.no_wrap, line.overflow = True, "ellipsis"
        rows: list[RenderableType] = [line]
        if call.total:
            rows.append(_progress_row(call))
        if call.status:
            status = Text(f"{_indent(call.depth)}    └ {call.status}", style="dim")
            status.no_wrap, status.overflow = True, "ellipsis"
            rows.append(status)
        return Group(*rows)


def _progress_row(call: RunningCall) -> RenderableType:
    assert call.total
    done = min(max(call.progress or 0.0, 0.0), call.total)
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(width=30)
    grid.add_column(no_wrap=True)
    grid.add_row(
        Text(_indent(call.depth) + "   "),
        ProgressBar(total=call.total, completed=done, width=30),
        Text(f"{100 * done / call.total:.0f}%", style="dim"),
    )
    return grid


def finished_line(
    name: str, detail: str, success: bool | None, took: str, output: str, depth: int = 1
) -> RenderableType:
    """One call's final line with how long it ``took``, and a dim preview of its output (the first lines only)."""
    mark, style = {True: ("✓", "green"), False: ("✗", "red"), None: ("?", "yellow")}[success]
    line = Text(_indent(depth) + " ")
    line.append(mark, style=style)
    line.append(" ")
    line.append(name, style="bold")
    if detail:
        line.append(" " + detail)
    line.append(f"  {took}", style="dim")
    note = redaction_note(output)
    if note:
        line.append(f"  {note}", style="yellow")
    line.no_wrap = True
    line.overflow = "ellipsis"
    preview = _preview(output, depth)
    return Group(line, preview) if preview is not None else line


def _preview(output: str, depth: int) -> Text | None:
    lines = [visible(line.expandtabs(4)).rstrip() for line in output.splitlines() if line.strip()]
    if not lines:
        return None
    shown = [line[:PREVIEW_WIDTH] for line in textwrap.dedent("\n".join(lines[:PREVIEW_LINES])).splitlines()]
    if len(lines) > PREVIEW_LINES:
        shown.append(f"… +{len(lines) - PREVIEW_LINES} lines")
    prefix = _indent(depth) + "    "
    return Text("\n".join(prefix + line for line in shown), style="dim", no_wrap=True, overflow="ellipsis")
