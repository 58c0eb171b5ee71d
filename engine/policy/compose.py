"""Put a toolset behind the policy: result guards inside, the approval gate around them, the mode filter outside."""

from __future__ import annotations

from engine.policy.config import GuardSettings, PermissionConfig
from engine.policy.gate import ApprovalGate, Approver
from engine.policy.guards import GuardedToolset, ResultGuard
from engine.policy.injection import PromptInjectionGuard
from engine.policy.modes import ModeFilter, ModeManager
from engine.policy.permissions import PermissionPolicy
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

    The mode filter comes first, so a call plan mode hides never reaches the approver; the guards
    come last, so they see what the tool returned, before anything else does.
    """
    guards = result_guards(permissions.guards) + list(extra_guards or ())
    toolset: Toolset = GuardedToolset(inner, guards) if guards else inner
    gate = ApprovalGate(toolset, PermissionPolicy(permissions), approver, modes=modes)
    return ModeFilter(gate, modes, permissions.book.read_only_tools)
