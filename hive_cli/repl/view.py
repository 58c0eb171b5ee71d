"""How the REPL shows a run: one small function per event kind, one live region, calm scrollback.

Finished things (markdown blocks, tool calls that ended, errors) are printed once into the normal
scrollback. Only what is still changing — the markdown block in progress, the calls in flight, a
"thinking" spinner — lives in a small transient region at the bottom, redrawn a few times a second.
"""

from __future__ import annotations

import time
from typing import assert_never

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from engine.events import (
    ApprovalRequested,
    ApprovalResolved,
    ContextCompacted,
    ErrorEvent,
    Event,
    ModeChanged,
    ModelResponding,
    ModelTurnStarted,
    ReasoningDelta,
    Retrying,
    RunFinished,
    RunResult,
    RunStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolProgress,
    TurnCompleted,
)
from engine.policy.gate import NOT_SAVED
from hive_cli.output.summaries import cost_text, tokens_text
from hive_cli.render.markdown_stream import MarkdownStream, TextStream
from hive_cli.render.plain_stream import PlainTextStream
from hive_cli.repl.timeline import Timeline
from hive_cli.terminal_text import visible

REFRESH_PER_SECOND = 12


class WaitingLine:
    """What hive waits for until the answer starts: the stage, the seconds so far, the reasoning streamed."""

    def __init__(self) -> None:
        self.spinner = Spinner("dots", style="cyan")
        self.what = "Thinking…"
        self.since = time.monotonic()
        self.reasoning_chars = 0

    def start(self, what: str) -> None:
        """Wait for something new from now on."""
        self.what, self.since, self.reasoning_chars = what, time.monotonic(), 0

    def __rich__(self) -> RenderableType:
        line = f"{self.what} {time.monotonic() - self.since:.0f}s"
        if self.reasoning_chars:
            line += f" · ~{max(1, self.reasoning_chars // 4):,} reasoning tokens"
        self.spinner.update(text=Text(line, style="dim"))
        return self.spinner


class ReplView:
    """Renders the events of one run after another onto a Rich console."""

    def __init__(self, console: Console, *, live: bool | None = None) -> None:
        self.console = console
        self.use_live = console.is_terminal if live is None else live
        self.timeline = Timeline()
        self.markdown: TextStream = MarkdownStream(console) if console.is_terminal else PlainTextStream(console)
        self._live: Live | None = None
        self._waiting_since: float | None = None
        self._waiting = WaitingLine()
        self._model = ""

    # --- the live region ------------------------------------------------------------------

    def _live_region(self) -> RenderableType:
        parts: list[RenderableType] = []
        pending = self.markdown.pending()
        if pending is not None:
            parts.append(pending)
        running = self.timeline.live()
        if running is not None:
            parts.append(running)
        elif self._waiting_since is not None and pending is None:
            parts.append(self._waiting)
        return Group(*parts)

    def _start_live(self) -> None:
        if self.use_live and self._live is None:
            self._live = Live(
                get_renderable=self._live_region,
                console=self.console,
                refresh_per_second=REFRESH_PER_SECOND,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def pause(self) -> None:
        """Take the live region down (e.g. to ask a question); ``resume`` brings it back."""
        self._stop_live()

    def resume(self) -> None:
        """Bring the live region back after ``pause``."""
        self._start_live()

    def waiting(self, what: str) -> None:
        """Show a spinner saying what hive waits for (before a run starts, e.g. the model library loading)."""
        self._waiting.start(what)
        self._waiting_since = time.monotonic()
        self._start_live()

    def print(self, renderable: RenderableType) -> None:
        """Print above the live region, into the scrollback."""
        self.console.print(renderable)

    # --- events ---------------------------------------------------------------------------

    def handle(self, event: Event) -> None:
        """Show one event: one small method per kind."""
        match event:
            case RunStarted():
                self._on_run_started(event)
            case ModelTurnStarted():
                self._on_model_turn_started(event)
            case TextDelta():
                self._on_text_delta(event)
            case ModelResponding() | ReasoningDelta():
                self._on_model_working(event)
            case ToolCallStarted():
                self._on_tool_call_started(event)
            case ToolProgress():
                self.timeline.update(event)
            case ToolCallFinished():
                self.print(self.timeline.finish(event.outcome))
            case Retrying():
                self._on_retrying(event)
            case ContextCompacted():
                self._on_context_compacted(event)
            case TurnCompleted():
                self._on_turn_completed(event)
            case ModeChanged() | ApprovalRequested():
                pass  # the prompt and the status line show the mode; the approver asks the question
            case ApprovalResolved():
                self._on_approval_resolved(event)
            case ErrorEvent():
                self._on_error(event)
            case RunFinished():
                self._on_run_finished(event)
            case _:
                assert_never(event)

    def _on_run_started(self, event: RunStarted) -> None:
        self._model = event.model
        self._waiting.start(f"Connecting to {event.model}")
        self._waiting_since = time.monotonic()
        self._start_live()

    def _on_model_turn_started(self, event: ModelTurnStarted) -> None:
        if event.scope is not None and event.scope.depth > 0:
            return  # a nested run's turn: its tool calls show under the call that runs it
        self.markdown.finish()
        self._model = event.model
        self._waiting.start(f"Connecting to {event.model}")
        self._waiting_since = time.monotonic()

    def _on_model_working(self, event: ModelResponding | ReasoningDelta) -> None:
        """The provider took the request: from here on the wait is the model's (the seconds count on).

        The reasoning itself stays out of the way; the waiting line counts it.
        """
        self._waiting.what = f"{self._model} is thinking"
        if isinstance(event, ReasoningDelta):
            self._waiting.reasoning_chars += len(event.text)

    def _on_text_delta(self, event: TextDelta) -> None:
        self._waiting_since = None
        self.markdown.feed(event.text)

    def _on_tool_call_started(self, event: ToolCallStarted) -> None:
        self.markdown.finish()
        self._waiting_since = None
        scope = event.scope
        shown = scope.label if scope is not None and scope.tool_kind == "agent" else None
        self.timeline.start(event.call, scope.depth if scope else 1, shown)

    def _on_retrying(self, event: Retrying) -> None:
        wait = f"; retrying in {event.delay_s:.0f}s" if event.delay_s else "; asking again now"
        then = "" if event.resumed else wait
        self.print(Text(f"  {visible(event.message)}{then}", style="yellow"))  # may quote a provider's answer

    def _on_context_compacted(self, event: ContextCompacted) -> None:
        self.print(
            Text(
                f"  context compacted ({event.reason}): {event.summarised_messages} messages summarised, "
                f"{event.kept_messages} kept",
                style="dim",
            )
        )

    def _on_turn_completed(self, event: TurnCompleted) -> None:
        if event.addendum:
            self.print(Text(event.addendum, style="dim"))

    def _on_approval_resolved(self, event: ApprovalResolved) -> None:
        self.timeline.decided(event.call_id)
        if not event.allowed:
            self.print(Text(f"  ✗ not allowed: {visible(event.reason)}", style="red"))
        elif NOT_SAVED in event.reason:
            self.print(Text(f"  ✗ {event.reason}", style="red"))

    def _on_error(self, event: ErrorEvent) -> None:
        self.markdown.finish()
        line = Text("✗ ", style="bold red")
        line.append(visible(event.message, keep_newlines=True), style="red")  # may quote a server's answer
        if event.fix:
            line.append(f"\n  {event.fix}", style="dim")
        self.print(line)

    def _on_run_finished(self, event: RunFinished) -> None:
        self.markdown.finish()
        self._waiting_since = None
        self._stop_live()
        if event.result.exit_reason == "cancelled":
            for outcome in event.result.turns[-1].outcomes if event.result.turns else ():
                if outcome.call.id in self.timeline.running:  # stopped mid-way: show what it produced
                    self.print(self.timeline.finish(outcome))
            self.print(Text("  (cancelled)", style="yellow"))
        self.print(Text(run_summary(event.result), style="dim"))


def run_summary(result: RunResult) -> str:
    """One run in one line: "1,234 in / 56 out · $0.0012 · 3 tools · 4.2s"."""
    usage = result.report.total if result.report is not None else result.usage
    duration = result.report.duration_s if result.report is not None else 0.0
    calls = len(result.tool_outcomes)
    tools = f" · {calls} tool{'s' if calls != 1 else ''}" if calls else ""
    return f"  {tokens_text(usage)} · {cost_text(usage)}{tools} · {duration:.1f}s"
