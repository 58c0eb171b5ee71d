"""An approver that puts each Ask to the program driving hive over stdin, and denies what it does not answer in time.

The question itself goes out as the ``approval_requested`` line the gate emits (with its ``request_id``); the
answer is an ``{"type": "approval", ...}`` line naming it. No answer within the timeout, or stdin ending first,
is a deny, and the model is told which.
"""

from __future__ import annotations

import asyncio

from engine.policy.gate import ApprovalRequest, Decision
from hive_cli.headless.inbox import Inbox

DEFAULT_APPROVAL_TIMEOUT_S = 300.0


class StdinApprover:
    """Answers approval requests with what the program sends on stdin."""

    asks_a_person = False
    """A program answers, not necessarily a person at a terminal: person-only asks are refused, as with --yes."""

    def __init__(self, inbox: Inbox, timeout_s: float = DEFAULT_APPROVAL_TIMEOUT_S) -> None:
        self.inbox = inbox
        self.timeout_s = timeout_s

    async def decide(self, request: ApprovalRequest) -> Decision:
        answer = self.inbox.expect(request.request_id)
        try:
            said = await asyncio.wait_for(answer, self.timeout_s)
        except TimeoutError:
            self.inbox.forget(request.request_id)
            return Decision(
                allowed=False,
                reason=f"no answer came within {self.timeout_s:g}s (--approval-timeout), so it was denied",
            )
        if said is None:
            return Decision(allowed=False, reason="stdin ended before an answer came, so it was denied")
        return Decision(allowed=said.allowed, reason=said.reason)
