"""The ``guards:`` section of a permissions file, and how the files' sections combine into :class:`GuardSettings`.

Every file may switch a guard on, make its action stricter or add an MCP allowlist (allowlists add
up: a call must pass each). Only the person's own file, or a trusted project's, may switch the
injection guard's default for MCP results off; an untrusted project's
``prompt_injection: {enabled: false}`` is ignored and reported (see :mod:`engine.trust.permissions`).
"""

from __future__ import annotations

from typing import Literal

from msgspec import field
from msgspec.structs import replace

from engine.config.validation import StrictRecord
from engine.policy.config import GuardSettings, McpAllowlist

_DANGER_ORDER = ("off", "ask", "deny")


class InjectionGuardEntry(StrictRecord, frozen=True):
    """``guards.prompt_injection``: flag (or withhold) tool results that look like prompt injection.

    ``enabled: true`` judges every result; unset, MCP results are judged (the web tools judge their pages anyway);
    ``enabled: false`` judges none (counted only from the person's own file or a trusted project's).
    """

    enabled: bool | None = None
    action: Literal["flag", "withhold"] = "flag"


class AllowlistEntry(StrictRecord, frozen=True):
    """``guards.mcp_allowlist``: the only MCP servers and tools that may be called (empty lists: none)."""

    servers: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()


class DangerousArgumentsEntry(StrictRecord, frozen=True):
    """``guards.dangerous_arguments``: refuse (or ask a person about) MCP calls whose arguments look dangerous."""

    enabled: bool = False
    action: Literal["deny", "ask"] = "deny"


class GuardsSection(StrictRecord, frozen=True):
    """The ``guards:`` section."""

    prompt_injection: InjectionGuardEntry = field(default_factory=InjectionGuardEntry)
    mcp_allowlist: AllowlistEntry | None = None
    dangerous_arguments: DangerousArgumentsEntry = field(default_factory=DangerousArgumentsEntry)


def combine_guards(
    current: GuardSettings, section: GuardsSection, source: str = "", *, may_loosen: bool = True
) -> tuple[GuardSettings, list[str]]:
    """``current`` with one file's ``section`` added, and what the file asked for that did not count.

    ``may_loosen`` is False for an untrusted project's file: it may only tighten.
    """
    combined, refused = _with_injection(current, section.prompt_injection, may_loosen, source)
    if section.mcp_allowlist is not None:
        entry = section.mcp_allowlist
        allowlist = McpAllowlist(servers=entry.servers, tools=entry.tools, source=source)
        combined = replace(combined, mcp_allowlists=(*combined.mcp_allowlists, allowlist))
    danger = section.dangerous_arguments
    if danger.enabled and _DANGER_ORDER.index(danger.action) > _DANGER_ORDER.index(combined.dangerous_arguments):
        combined = replace(combined, dangerous_arguments=danger.action)
    return combined, refused


def _with_injection(
    current: GuardSettings, entry: InjectionGuardEntry, may_loosen: bool, source: str
) -> tuple[GuardSettings, list[str]]:
    if entry.enabled is False:
        if not may_loosen:
            return current, [f"guards.prompt_injection.enabled: false ({source})"]
        return replace(current, injection_on_mcp=False), []
    withhold = entry.action == "withhold" or current.prompt_injection_action == "withhold"
    action: Literal["flag", "withhold"] = "withhold" if withhold else "flag"
    return replace(
        current, prompt_injection=current.prompt_injection or bool(entry.enabled), prompt_injection_action=action
    ), []
