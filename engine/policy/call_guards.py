"""The guards on MCP calls one turns on in the ``guards:`` section: the server/tool allowlist and the argument check.

They judge at the approval gate, as a policy over the permission rules, so a call they refuse is never
put to a person first, an ask reaches the person like any other, and ``hive permissions check`` shows
them. Neither ever loosens: a call the rules deny stays denied.

- ``mcp_allowlist``: a call to an MCP tool is denied unless every allowlist set names its server
  (``servers``) or the tool (``tools``, full names or patterns such as ``mcp__github__get_*``);
- ``dangerous_arguments``: a call whose arguments carry a dangerous shape
  (:mod:`engine.policy.dangerous_arguments`) is denied, or, with ``action: ask``, asked of a person
  every time (``--yes`` and "always" answers never cover it, as for hive's protected paths).
"""

from __future__ import annotations

from msgspec.structs import replace

from engine.events import ToolCall
from engine.globs import name_matches
from engine.policy.config import GuardSettings, McpAllowlist
from engine.policy.gate import Judgement, Policy
from engine.tools.base import ToolContext, ToolSpec
from engine.tools.paths import working_directory

MCP_PREFIX = "mcp__"
ALLOWLIST_SOURCE = "guards.mcp_allowlist"
ARGUMENTS_SOURCE = "guards.dangerous_arguments"


def with_call_guards(inner: Policy, guards: GuardSettings) -> Policy:
    """``inner``, or ``inner`` under the MCP call guards when the settings turn one on."""
    if not guards.mcp_allowlists and guards.dangerous_arguments == "off":
        return inner
    return McpCallGuards(inner, guards)


class McpCallGuards:
    """A policy over ``inner``: MCP calls the allowlist does not name are denied, dangerous arguments denied or asked."""

    def __init__(self, inner: Policy, guards: GuardSettings) -> None:
        self.inner = inner
        self.guards = guards

    def judge(self, spec: ToolSpec, call: ToolCall, ctx: ToolContext) -> Judgement:
        judgement = self.inner.judge(spec, call, ctx)
        if judgement.verdict == "deny" or not call.name.startswith(MCP_PREFIX):
            return judgement
        refusal = allowlist_refusal(self.guards.mcp_allowlists, call.name, _server(spec, call.name))
        if refusal is not None:
            return Judgement(verdict="deny", reason=refusal, source=ALLOWLIST_SOURCE)
        if self.guards.dangerous_arguments == "off":
            return judgement
        from engine.policy.dangerous_arguments import dangerous_shapes  # its patterns only once a call is judged

        shapes = dangerous_shapes(call.arguments, str(working_directory(ctx)))
        if not shapes:
            return judgement
        reason = "its arguments look dangerous: " + "; ".join(shapes)
        if self.guards.dangerous_arguments == "deny":
            return Judgement(verdict="deny", reason=reason, source=ARGUMENTS_SOURCE)
        return replace(
            judgement, verdict="ask", reason=reason, source=ARGUMENTS_SOURCE, rule=None, lasting=(), person_only=True
        )


def allowlist_refusal(allowlists: tuple[McpAllowlist, ...], tool: str, server: str) -> str | None:
    """Why ``tool`` of ``server`` may not be called (the first allowlist that leaves it out), or None."""
    for allowlist in allowlists:
        if any(name_matches(pattern, server) for pattern in allowlist.servers):
            continue
        if any(name_matches(pattern, tool) for pattern in allowlist.tools):
            continue
        named = ", ".join((*allowlist.servers, *allowlist.tools)) or "nothing"
        return f"{tool} is not on the MCP allowlist of {allowlist.source or 'the permissions'} (it allows: {named})"
    return None


def _server(spec: ToolSpec, name: str) -> str:
    if spec.kind == "mcp" and spec.source:
        return spec.source
    return name[len(MCP_PREFIX) :].split("__", 1)[0]
