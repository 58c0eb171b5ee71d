"""hive's approvals put to the editor as ``session/request_permission``.

The gate (:mod:`engine.policy.gate`) decides what needs a person; this approver only asks. The options
offered follow the REPL's keys: allow once (y), allow always for this session (a: only when the gate has an
exact pattern to remember, never for a person-only request), reject once (n). The editor's "always"
answer records that exact pattern, as the REPL's ``a`` does; a cancelled request refuses the call.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Protocol

from acp import text_block, tool_content
from acp.schema import AllowedOutcome, PermissionOption, RequestPermissionResponse, ToolCallLocation, ToolCallUpdate

from engine.policy.gate import ApprovalRequest, Decision
from engine.tools.editor_files import EditorFiles
from hive_cli.acp import edits
from hive_cli.acp.updates import KINDS, title

ALLOW_ONCE = "allow-once"
ALLOW_ALWAYS = "allow-always"
REJECT_ONCE = "reject-once"


class PermissionAsker(Protocol):
    """The connection's side of it: the editor's ``session/request_permission``."""

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse: ...


class EditorApprover:
    """Answers the gate's questions by asking the editor (a person answers there)."""

    asks_a_person = True

    def __init__(self, editor: PermissionAsker, cwd: Path, files: EditorFiles | None = None) -> None:
        self.editor = editor
        self.cwd = cwd
        self.files = files
        """The editor's files, when it offers them: the question's diff starts from the open buffer."""
        self.session_id = ""
        """Set once the session is open (the approver is built before it)."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        tool_call = await asyncio.to_thread(self._tool_call, request)
        answer = await self.editor.request_permission(
            session_id=self.session_id, tool_call=tool_call, options=options(request)
        )
        outcome = answer.outcome
        if not isinstance(outcome, AllowedOutcome):
            return Decision(allowed=False, reason="the user cancelled the question")
        if outcome.option_id == ALLOW_ONCE:
            return Decision(allowed=True, reason="allowed once by the user")
        if outcome.option_id == ALLOW_ALWAYS and request.remember:
            return Decision(allowed=True, reason="allowed for this session", remember=request.remember)
        return Decision(allowed=False, reason="the user rejected it")

    def _tool_call(self, request: ApprovalRequest) -> ToolCallUpdate:
        """The call as the editor shows it in the question: its title, kind, file and what it would change."""
        call = request.call
        path = edits.target(call, self.cwd) if call.name in KINDS else None
        content: list[Any] = []
        if call.name in edits.EDIT_TOOLS and path is not None:
            before = edits.current_text(path, self.files)
            change = edits.diff(path, before, None if before is None else edits.proposed_text(call, before))
            content = [change] if change is not None else []
        if request.reason:
            content.append(tool_content(text_block(f"Needs approval: {request.reason}")))
        if request.warning:
            content.append(tool_content(text_block(f"Warning: {request.warning}")))
        return ToolCallUpdate(
            tool_call_id=call.id,
            title=title(call),
            kind=KINDS.get(call.name, "other"),
            status="pending",
            content=content or None,
            locations=[ToolCallLocation(path=str(path))] if path is not None else None,
            raw_input=call.arguments,
        )


def options(request: ApprovalRequest) -> list[PermissionOption]:
    """Allow once, allow always (only with an exact pattern to remember), reject once."""
    offered = [PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once")]
    if request.remember:
        always = f"Always allow in this session: {request.remember}"
        offered.append(PermissionOption(option_id=ALLOW_ALWAYS, name=always, kind="allow_always"))
    offered.append(PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"))
    return offered
