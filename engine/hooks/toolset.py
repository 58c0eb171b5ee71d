"""pre_tool and post_tool hooks around every tool call that the permission rules let through.

Placed first in the approved-call slot (see :mod:`engine.policy.compose`): a pre_tool hook sees each call
the rules allowed (or a person approved) just before it runs, and may deny it (the model gets the reason),
ask the person (through the same gate as the rules' asks: with nobody to ask, it is refused), or allow it
(the rules have already spoken, so allow only means the hook does not object). A pre_tool hook that fails
or times out denies the call and is reported (fail closed). A post_tool hook sees the result and may add a
note for the model; one that fails is reported and the result stands.
"""

from __future__ import annotations

from msgspec import Struct

from engine.events import ToolCall
from engine.hooks.points import Hooks
from engine.hooks.runner import HookOutcome
from engine.policy.gate import ApprovalGate, Approver, Judgement
from engine.policy.modes import ModeManager
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.compose import ToolsetWrapper
from engine.tools.registry import WrapperToolset


class PreToolVerdict(Struct, frozen=True, kw_only=True):
    """What the pre_tool hooks said together: the first failure or deny wins, then any ask."""

    verdict: str
    reason: str = ""


def pre_tool_verdict(outcomes: list[HookOutcome]) -> PreToolVerdict:
    """Combine the pre_tool outcomes: a failure or a deny denies, an ask asks, else the call may run."""
    for outcome in outcomes:
        if outcome.failure is not None:
            return PreToolVerdict(verdict="deny", reason=f"{outcome.describe()} (a failing pre_tool hook denies)")
        if outcome.denies:
            return PreToolVerdict(verdict="deny", reason=f"denied by {outcome.hook.label}: {_reason(outcome)}")
    asks = [o for o in outcomes if o.decision == "ask"]
    if asks:
        return PreToolVerdict(verdict="ask", reason=f"{asks[0].hook.label} asks: {_reason(asks[0])}")
    return PreToolVerdict(verdict="allow")


class _HookAsks:
    """The policy of the gate a hook's ask goes through: ask, with the reason the hook gave for this call."""

    def __init__(self) -> None:
        self.reasons: dict[str, str] = {}

    def judge(self, spec: ToolSpec, call: ToolCall, ctx: ToolContext) -> Judgement:
        return Judgement(verdict="ask", reason=self.reasons.pop(call.id, "a pre_tool hook asks"), source="hooks")


class HookedToolset(WrapperToolset):
    """Runs the pre_tool hooks before each call and the post_tool hooks after it."""

    def __init__(self, inner: Toolset, hooks: Hooks, approver: Approver | None, modes: ModeManager) -> None:
        super().__init__(inner)
        self.hooks = hooks
        self._asks = _HookAsks()
        self._gate = ApprovalGate(inner, self._asks, approver, modes=modes)

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        outcomes = await self.hooks.run("pre_tool", call.name, arguments=call.arguments)
        self.hooks.report(outcomes, ctx.emit)
        verdict = pre_tool_verdict(outcomes)
        if verdict.verdict == "deny":
            return ToolResult.error(f"The {call.name} call was not run: {verdict.reason}")
        if verdict.verdict == "ask":
            self._asks.reasons[call.id] = verdict.reason
            result = await self._gate.call(call, ctx)
        else:
            result = await self.inner.call(call, ctx)
        return await self._after(call, result, ctx)

    async def _after(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> ToolResult:
        outcomes = await self.hooks.run(
            "post_tool",
            call.name,
            arguments=call.arguments,
            result={"output": result.output, "success": result.success},
        )
        self.hooks.report(outcomes, ctx.emit)
        notes = [f"[{o.hook.label} notes: {o.note}]" for o in outcomes if o.failure is None and o.note]
        if not notes:
            return result
        return ToolResult(result.output.rstrip("\n") + "\n\n" + "\n".join(notes), result.success, images=result.images)


def hook_wrapper(hooks: Hooks | None, approver: Approver | None, modes: ModeManager) -> tuple[ToolsetWrapper, ...]:
    """The approved-call wrapper that runs the tool hooks (none when no pre_tool or post_tool hook is configured)."""
    if hooks is None or not (hooks.has("pre_tool") or hooks.has("post_tool")):
        return ()
    return (lambda inner: HookedToolset(inner, hooks, approver, modes),)


def _reason(outcome: HookOutcome) -> str:
    return outcome.reason or "no reason given"
