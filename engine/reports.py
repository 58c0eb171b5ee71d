"""Usage reports: what one request cost, per model turn and per tool call. Standard library only.

Reports never carry prompt text, tool arguments or tool results.
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct, field

from engine.usage import Usage

ToolKind = Literal["tool", "mcp", "agent"]


class ToolCallReport(Struct, frozen=True, kw_only=True):
    """One tool call: what it cost (its own usage, nested calls and nested runs rolled up) and how it went."""

    call_id: str
    tool_name: str
    kind: ToolKind = "tool"
    source: str | None = None
    """The MCP server or the agent behind the tool, when there is one."""
    usage: Usage = field(default_factory=Usage)
    """Everything this call cost, children and nested runs included."""
    children: tuple[ToolCallReport, ...] = ()
    duration_s: float = 0.0
    """How long the call ran, without ``waited_s``."""
    succeeded: bool | None = None
    waited_s: float = 0.0
    """How long the call waited for a person's decision."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "call_id": self.call_id,
            "tool_name": self.tool_name,
            "kind": self.kind,
            "source": self.source,
            "usage": self.usage.to_dict(),
            "children": [child.to_dict() for child in self.children],
            "duration_s": round(self.duration_s, 4),
            "waited_s": round(self.waited_s, 4),
            "succeeded": self.succeeded,
        }


RequestOutcome = Literal["completed", "failed", "cancelled"]


class UsageReport(Struct, frozen=True, kw_only=True):
    """What one request (a run of the agent loop) cost, attributed to model turns and tool calls."""

    model: str
    """The model hive was configured with (``openai/gpt-4o``), the same on success and failure."""
    provider: str
    reported_model: str | None = None
    """The model name the provider's first reply gave, when it gave one."""
    assistant: Usage = field(default_factory=Usage)
    """Model turns only."""
    turns: tuple[Usage, ...] = ()
    """One entry per model turn."""
    response_ids: tuple[str | None, ...] = ()
    """The provider's id of each model turn's response, in the order of ``turns`` (None where it gave none)."""
    tool_calls: tuple[ToolCallReport, ...] = ()
    """Top-level tool calls, each with its nested calls as children."""
    by_model: tuple[tuple[str, Usage], ...] = ()
    """Usage (with cost where the model is priced) per model, model turns and tool rollups alike."""
    duration_s: float = 0.0
    outcome: RequestOutcome = "completed"

    @property
    def response_id(self) -> str | None:
        """The provider's id of the request's last response that had one (the answer, for a completed run)."""
        return next((rid for rid in reversed(self.response_ids) if rid), None)

    def _turn_ids(self) -> tuple[str | None, ...]:
        """``response_ids``, one per turn (a report built without them has None for each)."""
        missing = len(self.turns) - len(self.response_ids)
        return self.response_ids[: len(self.turns)] + (None,) * max(0, missing)

    @property
    def total(self) -> Usage:
        """Assistant usage plus the rollups of the top-level tool calls."""
        total = self.assistant
        for call in self.tool_calls:
            total = total + call.usage
        return total

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "model": self.model,
            "reported_model": self.reported_model,
            "provider": self.provider,
            "outcome": self.outcome,
            "duration_s": round(self.duration_s, 3),
            "total": self.total.to_dict(),
            "assistant": self.assistant.to_dict(),
            "response_id": self.response_id,
            "turns": [
                turn.to_dict() | {"response_id": rid} for turn, rid in zip(self.turns, self._turn_ids(), strict=True)
            ],
            "tool_calls": [call.to_dict() for call in self.tool_calls],
            "by_model": {model: usage.to_dict() for model, usage in self.by_model},
        }


def provider_of(model: str) -> str:
    """The provider part of a litellm model string (``openai/gpt-4o`` → ``openai``)."""
    return model.split("/", 1)[0] if "/" in model else "openai"
