"""The policy's side of the sandbox: commands asked when it cannot start or cannot hide every secret, and a way
out for one blocked command."""

from __future__ import annotations

from msgspec.structs import replace

from engine.events import ToolCall
from engine.policy.call_guards import with_call_guards
from engine.policy.config import PermissionConfig
from engine.policy.gate import Judgement, Policy, RetryPlan
from engine.policy.permissions import PermissionPolicy
from engine.sandbox.options import SandboxOptions
from engine.tools.base import ToolContext, ToolResult, ToolSpec
from engine.tools.paths import working_directory

SHELL_TOOLS = frozenset({"execute_command"})
_NEEDS = {"filesystem": "a write the sandbox refuses", "network": "the network", "unix_socket": "a unix socket"}


def gate_policy(
    permissions: PermissionConfig, sandbox_problem: str | None, *, confined: SandboxOptions | None = None
) -> Policy:
    """The policy the approval gate uses: the rules (under the MCP call guards the ``guards:`` section turns on,
    :mod:`engine.policy.call_guards`), and the shell commands the sandbox cannot fully contain asked.

    ``sandbox_problem`` is why the sandbox cannot start (None when it runs, or when it is off on purpose):
    then every command is asked. ``confined``: the options of the sandbox commands run in (None when
    they do not run in one): a command is asked where that sandbox's walk of the project stopped early.
    """
    policy: Policy = with_call_guards(PermissionPolicy(permissions), permissions.guards)
    if sandbox_problem is not None:
        return AskUnconfinedCommands(policy, sandbox_problem)
    return policy if confined is None else AskWhereTheWalkStopped(policy, confined)


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


class AskWhereTheWalkStopped:
    """A policy over ``inner`` that asks about a shell command ``inner`` would allow where the sandbox cannot
    hide every secret file: its walk of the project (or of a writable root) stopped at its bounds.

    The sandbox hides the secret files its walk finds (see :mod:`engine.sandbox.scan`); past 20,000
    entries or 12 levels it finds no more, so a command there could read them. The walk is the sandbox's
    own (shared), done again before each command, so a project that grew past the bounds is asked at once.
    """

    def __init__(self, inner: Policy, options: SandboxOptions) -> None:
        self.inner = inner
        self.options = options

    def judge(self, spec: ToolSpec, call: ToolCall, ctx: ToolContext) -> Judgement:
        judgement = self.inner.judge(spec, call, ctx)
        if call.name not in SHELL_TOOLS or judgement.verdict != "allow" or ctx.outside_sandbox:
            return judgement
        from engine.sandbox.planner import walk_stopped  # imported here: only a shell command needs the walk

        reason = walk_stopped(self.options, working_directory(ctx))
        if reason is None:
            return judgement
        return replace(judgement, verdict="ask", reason=reason, source="hive's sandbox", lasting=())


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
