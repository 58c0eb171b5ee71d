"""The policy's side of the sandbox: commands asked when it cannot start, and a way out for one blocked command."""

from __future__ import annotations

from msgspec.structs import replace

from engine.events import ToolCall
from engine.policy.config import PermissionConfig
from engine.policy.gate import Judgement, Policy, RetryPlan
from engine.policy.permissions import PermissionPolicy
from engine.tools.base import ToolContext, ToolResult, ToolSpec

SHELL_TOOLS = frozenset({"execute_command"})
_NEEDS = {"filesystem": "a write the sandbox refuses", "network": "the network", "unix_socket": "a unix socket"}


def gate_policy(permissions: PermissionConfig, sandbox_problem: str | None) -> Policy:
    """The policy the approval gate uses: the rules, and every command asked when a sandbox asked for cannot start.

    ``sandbox_problem`` is why the sandbox cannot start (None when it runs, or when it is off on purpose).
    """
    policy = PermissionPolicy(permissions)
    return policy if sandbox_problem is None else AskUnconfinedCommands(policy, sandbox_problem)


class AskUnconfinedCommands:
    """A policy over ``inner`` that asks about every shell command ``inner`` would allow.

    Used only when a sandbox was asked for and cannot start: the commands would run with hive's own
    access, so the rules alone must not let them through.
    """

    def __init__(self, inner: Policy, problem: str) -> None:
        self.inner = inner
        self.problem = problem

    def judge(self, spec: ToolSpec, call: ToolCall, ctx: ToolContext) -> Judgement:
        judgement = self.inner.judge(spec, call, ctx)
        if call.name not in SHELL_TOOLS or judgement.verdict != "allow":
            return judgement
        reason = f"the sandbox cannot start here ({self.problem}), so the command would run unconfined"
        return replace(judgement, verdict="ask", reason=reason, source="hive's sandbox")


class RunOutsideOnce:
    """Offers to run a shell command the sandbox seems to have blocked once more outside it (a person decides).

    The offer says plainly what it means; a yes is for that one call and is never remembered.
    """

    def offer(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> RetryPlan | None:
        if call.name not in SHELL_TOOLS or result.success is not False or ctx.outside_sandbox:
            return None
        from engine.sandbox.denial import sandbox_denials

        kinds = sandbox_denials(result.output)
        if not kinds:
            return None
        what = " and ".join(_NEEDS[kind] for kind in kinds)
        reason = (
            f"it failed inside the sandbox, which looks like it needed {what}. Run it ONCE MORE OUTSIDE the "
            "sandbox, with your full access to files, network and environment?"
        )
        return RetryPlan(reason=reason, context=replace(ctx, outside_sandbox=True))
