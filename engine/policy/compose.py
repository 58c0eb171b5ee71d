"""Put a toolset behind the policy: result guards inside, the approval gate around them, the mode filter outside."""

from __future__ import annotations

from engine.policy.config import GuardSettings, PermissionConfig
from engine.policy.gate import ApprovalGate, Approver
from engine.policy.guards import GuardedToolset, ResultGuard
from engine.policy.injection import PromptInjectionGuard
from engine.policy.modes import ModeFilter, ModeManager
from engine.policy.permissions import PermissionPolicy
from engine.policy.search_filter import SearchResultFilter
from engine.tools.base import Toolset


def result_guards(settings: GuardSettings) -> list[ResultGuard]:
    """The result guards the settings switch on."""
    guards: list[ResultGuard] = []
    if settings.prompt_injection:
        guards.append(PromptInjectionGuard(action=settings.prompt_injection_action))
    return guards


def guarded_toolset(
    inner: Toolset,
    permissions: PermissionConfig,
    approver: Approver | None,
    modes: ModeManager,
    extra_guards: list[ResultGuard] | None = None,
) -> Toolset:
    """``inner`` with every result guarded, every call judged by the rules, and plan mode applied.

    The mode filter comes first, so a call plan mode hides never reaches the approver; search
    results lose the lines of files the read rules keep from the model before the guards see them.
    """
    policy = PermissionPolicy(permissions)
    toolset: Toolset = SearchResultFilter(inner, policy)
    guards = result_guards(permissions.guards) + list(extra_guards or ())
    if guards:
        toolset = GuardedToolset(toolset, guards)
    gate = ApprovalGate(toolset, policy, approver, modes=modes)
    return ModeFilter(gate, modes, permissions.book.read_only_tools)
