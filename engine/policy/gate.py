"""The approval gate: every tool call is judged, and only allowed calls run.

Allow runs the call; Deny comes back to the model as the tool result; Ask goes to the approver,
and with no approver an Ask is refused, never passed through.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from engine.events import ApprovalRequested, ApprovalResolved, ToolCall
from engine.policy.summary import summarize_call
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.registry import WrapperToolset

Verdict = Literal["allow", "ask", "deny"]


@dataclass(frozen=True, kw_only=True)
class Judgement:
    """A policy's verdict on one call, with the reason shown to the user and the model."""

    verdict: Verdict
    reason: str = ""


class Policy(Protocol):
    """Judges tool calls before they run."""

    def judge(self, spec: ToolSpec, call: ToolCall, ctx: ToolContext) -> Judgement: ...


@dataclass(frozen=True, kw_only=True)
class ApprovalRequest:
    """What the approver is shown."""

    call: ToolCall
    spec: ToolSpec
    summary: str
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class Decision:
    """The approver's answer; ``reason`` goes back to the model when the call is denied."""

    allowed: bool
    reason: str = ""


class Approver(Protocol):
    """Someone (or something) who answers approval requests."""

    async def decide(self, request: ApprovalRequest) -> Decision: ...


class ApproveEverything:
    """Answers every Ask with allow (``--yes``); Deny verdicts never reach it."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(allowed=True, reason="allowed by --yes")


class ReadOnlyPolicy:
    """Allows read-only tools and asks for everything else."""

    def judge(self, spec: ToolSpec, call: ToolCall, ctx: ToolContext) -> Judgement:
        if spec.read_only:
            return Judgement(verdict="allow", reason="read-only tool")
        return Judgement(verdict="ask", reason=f"{spec.name} can change files or run commands")


class ApprovalGate(WrapperToolset):
    """Wraps a toolset so that each call passes the policy (and the approver when it asks)."""

    def __init__(self, inner: Toolset, policy: Policy, approver: Approver | None) -> None:
        super().__init__(inner)
        self.policy = policy
        self.approver = approver

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        spec = next((s for s in self.inner.specs() if s.name == call.name), None)
        if spec is None:
            return await self.inner.call(call, ctx)
        judgement = self.policy.judge(spec, call, ctx)
        if judgement.verdict == "deny":
            return _refusal(call, f"denied by policy: {judgement.reason}")
        if judgement.verdict == "ask":
            decision = await self._ask(call, spec, judgement, ctx)
            if not decision.allowed:
                return _refusal(call, decision.reason)
        return await self.inner.call(call, ctx)

    async def _ask(self, call: ToolCall, spec: ToolSpec, judgement: Judgement, ctx: ToolContext) -> Decision:
        if self.approver is None:
            return Decision(
                allowed=False,
                reason="it needs approval and there is nobody to approve it (run hive with --yes to allow it)",
            )
        request = ApprovalRequest(call=call, spec=spec, summary=summarize_call(call), reason=judgement.reason)
        ctx.emit(ApprovalRequested(call=call, summary=request.summary))
        decision = await self.approver.decide(request)
        ctx.emit(ApprovalResolved(call_id=call.id, allowed=decision.allowed, reason=decision.reason))
        return decision


def _refusal(call: ToolCall, reason: str) -> ToolResult:
    return ToolResult.error(f"The {call.name} call was not run: {reason}.")
