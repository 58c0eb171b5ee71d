"""Events and results as JSON-ready mappings (the stream-json and json contracts)."""

from __future__ import annotations

from typing import Any, assert_never

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
    ToolCall,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutcome,
    ToolProgress,
    TurnCompleted,
    TurnRecord,
)

SCHEMA_VERSION = 1


def call_dict(call: ToolCall) -> dict[str, Any]:
    """A tool call as JSON."""
    return {"call_id": call.id, "name": call.name, "arguments": call.arguments}


def scope_dict(scope: ScopeInfo | None) -> dict[str, Any]:
    """A place in the scope tree (empty when the run was not tracked); a run's root has no label or kind."""
    if scope is None:
        return {}
    record: dict[str, Any] = {
        "scope_id": scope.scope_id,
        "parent_scope_id": scope.parent_scope_id,
        "depth": scope.depth,
    }
    if scope.tool_kind is not None:
        record |= {"label": scope.label, "tool_kind": scope.tool_kind}
    return record


def outcome_dict(outcome: ToolOutcome) -> dict[str, Any]:
    """A finished tool call as JSON: ``duration_s`` is the run time, ``waited_s`` the wait for a person's decision."""
    return call_dict(outcome.call) | {
        "success": outcome.success,
        "output": outcome.output,
        "duration_s": round(outcome.duration_s, 4),
        "waited_s": round(outcome.waited_s, 4),
    }


def turn_dict(turn: TurnRecord) -> dict[str, Any]:
    """A turn record as JSON (text, calls with outcomes, usage)."""
    return {
        "index": turn.index,
        "model": turn.model,
        "text": turn.text,
        "finish_reason": turn.finish_reason,
        "tool_calls": [outcome_dict(o) for o in turn.outcomes],
        "pending_calls": [call_dict(c) for c in turn.pending_calls],
        "usage": turn.usage.to_dict(),
        "response_id": turn.response_id,
    }


def usage_report(result: RunResult, duration_s: float, model: str) -> dict[str, Any]:
    """The run's usage report (per model turn and per tool call); a plain summary if it was not tracked."""
    if result.report is not None:
        return result.report.to_dict()
    return {
        "model": model,
        "total": result.usage.to_dict(),
        "turns": [t.usage.to_dict() | {"response_id": t.response_id} for t in result.turns],
        "tool_calls": [],
        "duration_s": round(duration_s, 3),
    }


def event_dict(event: Event) -> dict[str, Any] | None:
    """The stream-json line for ``event`` (with the agent that produced it), or None to skip it."""
    record = _record(event)
    return None if record is None else record | {"agent": event.agent}


def _record(event: Event) -> dict[str, Any] | None:
    match event:
        case RunStarted() | RunFinished():
            return None  # session_started and session_finished stand for them
        case ModelTurnStarted(index=index, model=model, scope=scope):
            return {"type": "model_turn_started", "index": index, "model": model, **scope_dict(scope)}
        case ModelResponding():
            return {"type": event.kind}
        case TextDelta(text=text) | ReasoningDelta(text=text):
            return {"type": event.kind, "text": text}
        case ToolCallStarted(call=call, read_only=read_only, scope=scope):
            record = {"type": "tool_call_started", **call_dict(call), "read_only": read_only, **scope_dict(scope)}
            return record | {"host_run": True} if event.host_run else record
        case ToolProgress():
            return {
                "type": "tool_progress",
                "call_id": event.call_id,
                "name": event.tool_name,
                "status": event.status,
                "progress": event.progress,
                "total": event.total,
                **scope_dict(event.scope),
            }
        case ToolCallFinished(outcome=outcome, scope=scope):
            return {"type": "tool_call_finished", **outcome_dict(outcome), **scope_dict(scope)}
        case Retrying():
            return {
                "type": "retrying",
                "category": event.category,
                "message": event.message,
                "attempt": event.attempt,
                "delay_s": event.delay_s,
                "resumed": event.resumed,
            }
        case ContextCompacted():
            return {
                "type": "context_compacted",
                "reason": event.reason,
                "summarised_messages": event.summarised_messages,
                "kept_messages": event.kept_messages,
                "usage": event.usage.to_dict() if event.usage is not None else None,
            }
        case TurnCompleted(turn=turn, addendum=addendum):
            return {"type": "turn_completed", **turn_dict(turn), "addendum": addendum}
        case ModeChanged():
            return {
                "type": "mode_changed",
                "previous": event.previous,
                "current": event.current,
                "reason": event.reason,
            }
        case ApprovalRequested(call=call, summary=summary, reason=reason, warning=warning):
            record = {
                "type": "approval_requested",
                "request_id": event.request_id,
                **call_dict(call),
                "tool": call.name,
                "summary": summary,
                "reason": reason,
            }
            return record | {"warning": warning} if warning else record
        case ApprovalResolved():
            return {
                "type": "approval_resolved",
                "request_id": event.request_id,
                "call_id": event.call_id,
                "allowed": event.allowed,
                "reason": event.reason,
            }
        case ErrorEvent(category=category, message=message, fix=fix):
            return {"type": "error", "category": category, "message": message, "fix": fix}
        case _:
            assert_never(event)
