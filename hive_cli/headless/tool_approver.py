"""``--approval-tool SERVER:TOOL``: each Ask is put to a tool of an MCP server, whose answer allows or denies it.

The tool is called with ``tool_name``, ``input`` and ``tool_use_id`` (the arguments Claude Code's
``--permission-prompt-tool`` sends, so a tool written for it works), plus hive's ``reason`` and ``request_id``. Its
text answer is JSON: ``{"behavior": "allow" | "deny", "message": ...}`` (Claude Code's) or
``{"decision": "allow" | "deny", "reason": ...}`` (hive's). Anything else, a failed call or an answer that changes
the call's input (``updatedInput``, which hive does not take), is a deny that says why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import UserError
from engine.events import ToolCall
from engine.policy.gate import ApprovalRequest, Decision
from engine.tools.base import ToolContext

if TYPE_CHECKING:
    from engine.mcp.manager import McpManager

ANSWERS = {"allow": True, "deny": False}


def tool_name_of(option: str) -> str:
    """``SERVER:TOOL`` as the MCP tool's name in hive (``mcp__SERVER__TOOL``); a usage error when malformed."""
    server, colon, tool = option.partition(":")
    if not colon or not server or not tool:
        raise UserError(f"--approval-tool {option!r}: give SERVER:TOOL, an MCP server's name and one of its tools")
    return f"mcp__{server}__{tool}"


class McpToolApprover:
    """Answers approval requests with an MCP tool's verdict."""

    asks_a_person = False
    """A tool answers, not a person: person-only asks are refused, as with --yes."""

    def __init__(self, option: str, cwd: Path, scratch: Path) -> None:
        self.option = option
        self.name = tool_name_of(option)
        self._context = ToolContext(cwd=cwd, data_dir=scratch)
        self._manager: McpManager | None = None

    def attach(self, manager: McpManager | None) -> None:
        """Take the session's MCP servers; ``UserError`` (exit 2) when none of them offers the tool."""
        offered = sorted(spec.name for spec in manager.specs()) if manager is not None else []
        if self.name not in offered:
            shown = ", ".join(offered) or "no MCP tools"
            raise UserError(f"--approval-tool {self.option}: no such MCP tool ({self.name}); the servers offer {shown}")
        self._manager = manager

    async def decide(self, request: ApprovalRequest) -> Decision:
        if self._manager is None:
            return Decision(allowed=False, reason=f"the approval tool {self.option} is not available")
        question = ToolCall(id=f"approval-{request.request_id}", name=self.name, arguments=_arguments(request))
        result = await self._manager.call(question, self._context)
        if not result.success:
            return Decision(allowed=False, reason=f"the approval tool {self.option} failed: {result.output[:300]}")
        return _verdict(result.output, request, self.option)


def _arguments(request: ApprovalRequest) -> dict[str, Any]:
    return {
        "tool_name": request.call.name,
        "input": request.call.arguments,
        "tool_use_id": request.call.id,
        "reason": request.reason,
        "request_id": request.request_id,
    }


def _verdict(output: str, request: ApprovalRequest, option: str) -> Decision:
    try:
        answer = json.loads(output)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        return Decision(
            allowed=False, reason=f"the approval tool {option} answered something that is not a JSON object"
        )
    said = answer.get("behavior", answer.get("decision"))
    if said not in ANSWERS:
        return Decision(allowed=False, reason=f'the approval tool {option} gave no "behavior" of "allow" or "deny"')
    changed = answer.get("updatedInput")
    if ANSWERS[said] and changed is not None and changed != request.call.arguments:
        return Decision(
            allowed=False, reason=f"the approval tool {option} changed the call's input, which hive does not take"
        )
    why = answer.get("message", answer.get("reason", ""))
    why = why if isinstance(why, str) and why else f"{said} by the approval tool {option}"
    return Decision(allowed=ANSWERS[said], reason=why)
