"""``--output-format text``: the answer streams to stdout; a compact tool log and a usage line go to stderr."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, TextIO, assert_never

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
    ScopeInfo,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolProgress,
    TurnCompleted,
)
from engine.redaction.marker import redaction_note
from hive_cli.output import RunInfo
from hive_cli.output.summaries import key_argument, size_note, timing, usage_line
from hive_cli.terminal_text import VisibleStream, visible, write_shown

PREVIEW_CHARS = 160


class TextRenderer:
    """Plain text for people and pipes."""

    def __init__(self, info: RunInfo, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.info = info
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._out_at_line_start = True
        self._answer_shown = VisibleStream()
        for notice in info.notices:
            self._log(f"hive: {visible(notice, keep_newlines=True)}")

    def handle(self, event: Event) -> None:
        match event:
            case TextDelta(text=text):
                self._answer(text)
            case ToolCallStarted(call=call, scope=scope):
                self._log(f"{_indent(scope)}→ {_shown(call.name, scope)} {key_argument(call)}".rstrip())
            case ToolCallFinished(outcome=outcome, scope=scope):
                mark = {True: "✓", False: "✗", None: "?"}[outcome.success]
                detail = "" if outcome.success else f": {_first_line(outcome.output)}"
                notes = [timing(outcome), size_note(outcome), redaction_note(outcome.output)]
                took = ", ".join(note for note in notes if note)
                self._log(f"{_indent(scope)}  {mark} {_shown(outcome.call.name, scope)} ({took}){detail}")
            case ToolProgress(status=status, scope=scope):
                if status:
                    self._log(f"{_indent(scope)}    {status}")
            case ContextCompacted(reason=reason, summarised_messages=summarised):
                self._log(f"hive: context compacted ({reason}): {summarised} messages summarised")
            case Retrying(message=message, resumed=True):
                self._log(f"hive: {message}", end_answer_line=False)  # the answer goes on where it stopped
            case Retrying(message=message, delay_s=delay):
                self._log(f"hive: {message}; " + (f"retrying in {delay:.1f}s" if delay else "asking again now"))
            case ApprovalResolved(allowed=False, reason=reason):
                self._log(f"  refused: {visible(reason)}")
            case ErrorEvent(message=message, fix=fix):
                self._log(f"hive: {message}" + (f"\n  to fix: {fix}" if fix else ""))
            case ModeChanged(previous="hitl") | ModeChanged(current="hitl"):
                pass  # the approval question already says it is waiting for the person
            case ModeChanged(current=current):
                self._log(f"mode: {current}")
            case RunStarted() | ModelTurnStarted() | ModelResponding() | ReasoningDelta() | TurnCompleted():
                pass
            case ApprovalRequested() | ApprovalResolved() | RunFinished():
                pass
            case _:
                assert_never(event)

    def finish(self, result: RunResult, duration_s: float, extra: Mapping[str, Any] | None = None) -> None:
        write_shown(self.out, self._answer_shown.flush())
        if not self._out_at_line_start:
            write_shown(self.out, "\n")
            self._out_at_line_start = True
        if extra and extra.get("error"):
            self._log(
                f"hive: {visible(str(extra['error']))}" + (f"\n  to fix: {extra['fix']}" if extra.get("fix") else "")
            )
        self._log(usage_line(result, duration_s))

    def _answer(self, text: str) -> None:
        # The model's text is shown, never obeyed: an OSC 52 sequence in it would set the terminal's clipboard.
        # Each control character is escaped on its own, so a sequence split across deltas is inert too.
        write_shown(self.out, self._answer_shown.feed(text))
        self._out_at_line_start = text.endswith("\n")

    def _log(self, line: str, *, end_answer_line: bool = True) -> None:
        if end_answer_line and not self._out_at_line_start:
            write_shown(self.out, "\n")
            self._out_at_line_start = True
        write_shown(self.err, line + "\n")  # tool names, server messages and errors may quote outside text


def _shown(name: str, scope: ScopeInfo | None) -> str:
    """A call's name as shown: the tool's, or "Calling explore Agent" for a delegation."""
    return scope.label if scope is not None and scope.tool_kind == "agent" and scope.label else name


def _indent(scope: ScopeInfo | None) -> str:
    """Two spaces per level below the run's own calls (a call inside a tool, a sub-agent's call)."""
    return "  " * (scope.depth - 1) if scope is not None and scope.depth > 1 else ""


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"
