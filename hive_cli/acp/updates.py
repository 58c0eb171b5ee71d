"""Engine events as ACP ``session/update`` notifications: one ``match`` over the closed union.

A tool call's lifecycle maps onto ``tool_call`` (in progress, with its kind and locations) and
``tool_call_update`` (completed or failed, with its output, and for an edit the diff of what it changed,
read from the file before and after). A successful ``todo_write`` becomes a ``plan``; a change of working
mode a ``current_mode_update``. The rest of the union (retries, compaction, approvals, model turns) has no
ACP counterpart and sends nothing: approvals reach the editor as permission requests instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, assert_never

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.helpers import update_current_mode
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    CurrentModeUpdate,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    ToolKind,
    UsageUpdate,
)

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
    RunStarted,
    TextDelta,
    ToolCall,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutcome,
    ToolProgress,
    TurnCompleted,
)
from hive_cli.acp import edits

Update = (
    AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | CurrentModeUpdate
    | UsageUpdate
)
"""What a run sends the editor."""

KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_directory": "read",
    "write_file": "edit",
    "edit_file": "edit",
    "execute_command": "execute",
    "glob_files": "search",
    "grep_files": "search",
    "ripgrep": "search",
    "todo_write": "think",
    "web_fetch": "fetch",
    "web_search": "search",
}
LONGEST_OUTPUT = 20_000
"""A tool's output beyond this many characters is cut in what the editor is sent (the model got it whole)."""


class EventUpdates:
    """Turns one session's engine events into the updates the editor is sent."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._before: dict[str, tuple[Path, str | None]] = {}
        """An edit's file and its text before the call ran, by call id."""

    def updates(self, event: Event) -> list[Update]:
        """The updates for ``event`` (none for what ACP has no place for)."""
        match event:
            case TextDelta(text=text) if event.agent == "root":
                return [update_agent_message_text(text)]
            case ReasoningDelta(text=text) if event.agent == "root":
                return [update_agent_thought_text(text)]
            case TextDelta() | ReasoningDelta():
                return []  # a sub-agent's words belong to its tool call, whose output carries them
            case ToolCallStarted(call=call):
                return [self._started(call)]
            case ToolProgress(call_id=call_id, status=status):
                content = [tool_content(text_block(status))] if status else None
                return [update_tool_call(call_id, status="in_progress", content=content)]
            case ToolCallFinished(outcome=outcome):
                return self._finished(outcome)
            case ModeChanged(current=current) if current != "hitl":
                return [update_current_mode(current)]
            case ErrorEvent(message=message, fix=fix):
                return [update_agent_message_text(f"\n\nhive: {message}" + (f" ({fix})" if fix else ""))]
            case (
                RunStarted()
                | ModelTurnStarted()
                | ModelResponding()
                | Retrying()
                | ContextCompacted()
                | TurnCompleted()
                | ModeChanged()
                | ApprovalRequested()
                | ApprovalResolved()
                | RunFinished()
            ):
                return []
            case _:
                assert_never(event)

    def _started(self, call: ToolCall) -> ToolCallStart:
        path = edits.target(call, self.cwd) if call.name in KINDS else None
        if call.name in edits.EDIT_TOOLS and path is not None:
            self._before[call.id] = (path, edits.current_text(path))
        return start_tool_call(
            call.id,
            title(call),
            kind=KINDS.get(call.name, "other"),
            status="in_progress",
            locations=[ToolCallLocation(path=str(path))] if path is not None else None,
            raw_input=call.arguments,
        )

    def _finished(self, outcome: ToolOutcome) -> list[Update]:
        call = outcome.call
        output = outcome.output if len(outcome.output) <= LONGEST_OUTPUT else outcome.output[:LONGEST_OUTPUT] + "…"
        content: list[Any] = [tool_content(text_block(output))] if output else []
        path, before = self._before.pop(call.id, (None, None))
        if path is not None and outcome.success:
            change = edits.diff(path, before, edits.current_text(path))
            content = [change] if change is not None else content
        status: ToolCallStatus = "failed" if outcome.success is False else "completed"
        finished: list[Update] = [update_tool_call(call.id, status=status, content=content or None)]
        if call.name == "todo_write" and outcome.success:
            finished.append(plan(call.arguments))
        return finished


def title(call: ToolCall) -> str:
    """The one line the editor shows for a call."""
    args = call.arguments
    if call.name == "execute_command":
        return str(args.get("command", "execute_command"))
    for key in ("path", "pattern", "query", "url"):
        if isinstance(args.get(key), str):
            return f"{call.name} {args[key]}"
    return call.name


def plan(arguments: dict[str, Any]) -> AgentPlanUpdate:
    """The todo list a ``todo_write`` call set, as the editor's plan."""
    todos = arguments.get("todos")
    entries = [
        plan_entry(str(item.get("content", "")), status=_status(item.get("status")))
        for item in (todos if isinstance(todos, list) else [])
        if isinstance(item, dict)
    ]
    return update_plan(entries)


def _status(status: Any) -> Any:
    return status if status in ("pending", "in_progress", "completed") else "pending"
