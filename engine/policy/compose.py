"""Put a toolset behind the policy. The order of the wrappers, outermost first:

1. ``ModeFilter``: in plan mode only read-only tools are offered and may run, so a call plan mode hides
   never reaches the approver.
2. ``ApprovalGate``: every call judged by the permission rules; asks go to the approver.
3. The *approved-call slot*: wrappers that must see exactly the calls that will run, just before they
   run, shell commands included (checkpoints snapshot the files a call may change here).
4. ``GuardedToolset``: every result through the result guards, the secret redaction first.
5. ``SearchResultFilter``: grep and glob results lose the lines of files the read rules keep back,
   before the guards see them.
6. The tools themselves (the combined toolsets of every provider).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.policy.config import GuardSettings, PermissionConfig
from engine.policy.gate import ApprovalGate, Approver, Policy, RetryOffer
from engine.policy.guards import GuardedToolset, ResultGuard
from engine.policy.modes import ModeFilter, ModeManager
from engine.policy.permissions import PermissionPolicy
from engine.policy.search_filter import SearchResultFilter
from engine.tools.base import Toolset
from engine.tools.compose import ToolsetWrapper


def result_guards(settings: GuardSettings, known_secrets: Sequence[str | None] = ()) -> list[ResultGuard]:
    """The secret redaction, always first (no setting turns it off), then the injection guard (on by default for
    MCP results, see :class:`GuardSettings`).

    The redaction replaces credentials, the values of the secret variables of hive's environment and
    ``known_secrets`` (the model's API key); the guards after it see the text the model will see.
    """
    from engine.redaction.guard import SecretRedactionGuard  # its rules load at the first result, not here

    guards: list[ResultGuard] = [
        SecretRedactionGuard.from_environment(known=[("model-api-key", secret) for secret in known_secrets])
    ]
    if settings.prompt_injection:
        from engine.policy.injection import PromptInjectionGuard  # imported here: its 8 patterns only when it is on

        guards.append(PromptInjectionGuard(action=settings.prompt_injection_action))
    elif settings.injection_on_mcp:
        from engine.policy.mcp_injection import McpInjectionGuard

        guards.append(McpInjectionGuard(action=settings.prompt_injection_action))
    return guards


def guarded_toolset(
    inner: Toolset,
    permissions: PermissionConfig,
    approver: Approver | None,
    modes: ModeManager,
    extra_guards: Sequence[ResultGuard] = (),
    *,
    approved_call_wrappers: Sequence[ToolsetWrapper] = (),
    gate_policy: Policy | None = None,
    retry_offer: RetryOffer | None = None,
    known_secrets: Sequence[str | None] = (),
) -> Toolset:
    """``inner`` behind the policy, in the order the module docstring gives.

    ``approved_call_wrappers`` fill the approved-call slot, the first given outermost. ``gate_policy``
    judges calls at the gate instead of the plain permission rules (it should build on them);
    ``retry_offer`` may propose to the person to run a finished call again (outside the sandbox);
    ``known_secrets`` are replaced in every result besides what the redaction finds itself.
    """
    policy = PermissionPolicy(permissions)
    toolset: Toolset = SearchResultFilter(inner, policy)
    guards = result_guards(permissions.guards, known_secrets) + list(extra_guards)
    toolset = GuardedToolset(toolset, guards)
    for wrap in reversed(approved_call_wrappers):
        toolset = wrap(toolset)
    gate = ApprovalGate(toolset, gate_policy or policy, approver, modes=modes, retry_offer=retry_offer)
    return ModeFilter(gate, modes, permissions.book.read_only_tools)
