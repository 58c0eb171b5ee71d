"""The approval gate: every tool call is judged, and only allowed calls run.

Allow runs the call; Deny comes back to the model as the tool result (a refusal, never an
exception); Ask goes to the approver, and with no approver an Ask is refused, never passed through.
While the approver decides, the mode is hitl and no other call starts; the time a call spends waiting
for a person is counted on the call's ``ToolContext.waits``, apart from its run time. An approver may answer
"always for this session", which records exactly the pattern it was shown and nothing broader, or
"always in this project" (allow or deny), which saves the exact rules it was shown with the person's
other answers for this project, in the user's config folder (see :mod:`engine.policy.local_rules`).

A *person-only* ask (a change to what runs or instructs by itself: hive's configuration, git's hooks and
config, the files that instruct agents; see :mod:`engine.policy.protected`) is put to a person every
time: an approver that answers by itself (``--yes``) or no approver at all refuses it, "always" is
never offered for it and nothing remembered skips its question (a "deny always" still may be).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager, nullcontext
from typing import Literal, Protocol
from uuid import uuid4

from msgspec import Struct, field
from msgspec.structs import replace

from engine.errors import ConfigError
from engine.events import ROOT_AGENT, ApprovalRequested, ApprovalResolved, ToolCall
from engine.policy.local_rules import LastingRule, save_lasting
from engine.policy.modes import ModeManager
from engine.policy.summary import diff_for_call, summarize_call
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.paths import working_directory
from engine.tools.registry import WrapperToolset

Verdict = Literal["allow", "ask", "deny"]
NOT_SAVED = "could not save it in the project"
"""In an approval's reason when the lasting rules it asked for could not be written (the answer holds once)."""
NOBODY_TO_ASK = "it needs approval and there is nobody to approve it (run hive with --yes to allow it)"
PERSON_ONLY = "only a person at a terminal can allow it (--yes does not cover it)"
"""Why a person-only ask was refused without a person to answer it."""
NOBODY_FOR_PERSON_ONLY = f"there is nobody to approve it, and {PERSON_ONLY}"


class Judgement(Struct, frozen=True, kw_only=True):
    """A policy's verdict on one call, with the reason shown to the user and the model."""

    verdict: Verdict
    reason: str = ""
    rule: str | None = None
    """The rule that decided (``bash: git *``), or None when the default action or a problem did."""
    source: str = ""
    """Where the deciding rule or default came from (``path:line``, ``built-in defaults``)."""
    remember: str | None = None
    """The exact pattern an "always for this session" answer would record for this call."""
    lasting: tuple[LastingRule, ...] = ()
    """The exact rules an "always in this project" answer would save as allows (empty: not offered)."""
    lasting_deny: tuple[LastingRule, ...] = ()
    """The exact rules a "deny always in this project" answer would save as denies (empty: not offered)."""
    person_only: bool = False
    """An ask only a person may answer, each time: refused by an approver that answers by itself or by none."""


class Policy(Protocol):
    """Judges tool calls before they run."""

    def judge(self, spec: ToolSpec, call: ToolCall, ctx: ToolContext) -> Judgement:
        """The verdict on ``call`` of the tool ``spec``, run in ``ctx``."""
        ...


class ApprovalRequest(Struct, frozen=True, kw_only=True):
    """What the approver is shown."""

    call: ToolCall
    spec: ToolSpec
    summary: str
    """One line: the full command, or what an edit does to which path."""
    reason: str = ""
    """Why the call needs approval (the rule that asks, or what could not be judged)."""
    rule: str | None = None
    source: str = ""
    diff: str | None = None
    """For ``write_file``/``edit_file``: a unified diff from the file as it is now."""
    warning: str = ""
    """What the person should know before allowing it that the rest does not say (e.g. "this change cannot be
    undone: ..."), from the wrappers the call will pass through; empty when nothing."""
    remember: str | None = None
    """The exact pattern "always for this session" records; None when it cannot be offered."""
    lasting: tuple[LastingRule, ...] = ()
    """The exact rules "always in this project" saves (in the user's config folder); empty: not offered."""
    lasting_deny: tuple[LastingRule, ...] = ()
    """The exact rules "deny always in this project" saves there; empty: not offered."""
    agent: str = ROOT_AGENT
    """The agent making the call: ``root``, or the sub-agent it was delegated to."""
    person_only: bool = False
    """Asked of a person every time: "always" is not offered (``remember`` is None, ``lasting`` empty)."""
    request_id: str = field(default_factory=lambda: uuid4().hex[:16])
    """This question's id, unique in the process (an answer over stdin names it)."""


class Decision(Struct, frozen=True, kw_only=True):
    """The approver's answer.

    ``reason`` goes back to the model when the call is denied. ``remember`` is the request's
    ``remember`` pattern to allow it for the rest of the session; any other value records nothing.
    ``save`` asks for the request's lasting rules to be saved in the project: ``"allow"`` (with
    ``allowed``) saves ``lasting``, ``"deny"`` (without) saves ``lasting_deny``; either also holds for
    the rest of the session.
    """

    allowed: bool
    reason: str = ""
    remember: str | None = None
    save: Literal["allow", "deny"] | None = None


class Approver(Protocol):
    """Someone (or something) who answers approval requests.

    An approver that answers by itself, without a person (``--yes``), sets ``asks_a_person = False``:
    its answers are still announced, but the agent does not pause in hitl mode for them, and it is
    never given a person-only request (the gate refuses those itself).
    """

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Answer one request; raising refuses the call."""
        ...


class RetryPlan(Struct, frozen=True, kw_only=True):
    """An offer to run a call that failed once more, differently: ``reason`` is the question put to the person."""

    reason: str
    context: ToolContext
    """The context to run the call again in (e.g. marked to run outside the sandbox)."""


class RetryOffer(Protocol):
    """After an allowed call ran, may propose to the person to run it once more (e.g. outside the sandbox)."""

    def offer(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> RetryPlan | None:
        """The plan, or None when there is nothing to offer."""
        ...


class ApproveEverything:
    """Answers every Ask with allow (``--yes``); Deny verdicts and person-only asks never reach it."""

    asks_a_person = False

    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(allowed=True, reason="allowed by --yes")


class ApprovalGate(WrapperToolset):
    """Wraps a toolset so that each call passes the policy (and the approver when it asks)."""

    def __init__(
        self,
        inner: Toolset,
        policy: Policy,
        approver: Approver | None,
        *,
        modes: ModeManager | None = None,
        retry_offer: RetryOffer | None = None,
    ) -> None:
        super().__init__(inner)
        self.policy = policy
        self.approver = approver
        self.modes = modes or ModeManager()
        self.retry_offer = retry_offer
        """Asked after a call ran; its plan is put to the person (never to an approver that answers by itself)."""
        self.remembered: set[str] = set()
        """Patterns allowed for the rest of the session by "always" answers."""
        self.refused: set[str] = set()
        """Patterns denied for the rest of the session by "deny always in this project" answers."""
        self._asking: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        spec = next((s for s in self.inner.specs() if s.name == call.name), None)
        if spec is None:
            return await self.inner.call(call, ctx)
        await self._wait_for_other_questions(ctx)
        judgement = self.policy.judge(spec, call, ctx)
        if judgement.verdict == "deny":
            return _refusal(call, f"denied by policy: {judgement.reason}")
        if judgement.verdict == "ask" and judgement.remember in self.refused:
            return _refusal(call, "the user denied it always in this project")
        if judgement.verdict == "ask" and (judgement.person_only or judgement.remember not in self.remembered):
            decision = await self._ask(call, spec, judgement, ctx)
            if not decision.allowed:
                return _refusal(call, decision.reason)
        result = await self.inner.call(call, ctx)
        return await self._second_chance(call, spec, result, ctx)

    async def _wait_for_other_questions(self, ctx: ToolContext) -> None:
        """Hold the call while a person answers another call's question (counted as the call's wait)."""
        if self.modes.current != "hitl":
            return
        with ctx.waits.waiting():
            await self.modes.wait_until_running()

    async def _second_chance(self, call: ToolCall, spec: ToolSpec, result: ToolResult, ctx: ToolContext) -> ToolResult:
        """Put the retry offer for a finished call to the person, and run the call again if they say yes."""
        if self.retry_offer is None or not self._person_answers():
            return result
        plan = self.retry_offer.offer(call, result, ctx)
        if plan is None:
            return result
        decision = await self._ask(call, spec, Judgement(verdict="ask", reason=plan.reason), ctx)
        if not decision.allowed:
            return result
        again = await self.inner.call(call, plan.context)
        return ToolResult(f"[Run again outside the sandbox, as the user allowed once.]\n{again.output}", again.success)

    async def _ask(self, call: ToolCall, spec: ToolSpec, judgement: Judgement, ctx: ToolContext) -> Decision:
        if judgement.person_only and not self._person_answers():
            why = PERSON_ONLY if self.approver is not None else NOBODY_FOR_PERSON_ONLY
            return Decision(allowed=False, reason=f"{judgement.reason}; {why}")
        if self.approver is None:
            return Decision(allowed=False, reason=f"{NOBODY_TO_ASK}. It needs approval because {judgement.reason}")
        request = await _request(call, spec, judgement, ctx, self._caveats)
        with self._waiting(ctx):
            async with self._approval_lock():
                if self._allowed_earlier(judgement):
                    return Decision(allowed=True, reason="allowed earlier in this session")
                async with self._pause(call, ctx):
                    ctx.emit(
                        ApprovalRequested(
                            call=call,
                            summary=request.summary,
                            reason=request.reason,
                            request_id=request.request_id,
                            agent=ctx.agent_id,
                            warning=request.warning,
                        )
                    )
                    decision = self._save(await self._decide(request), request, judgement, ctx)
                    ctx.emit(
                        ApprovalResolved(
                            call_id=call.id,
                            allowed=decision.allowed,
                            reason=decision.reason,
                            request_id=request.request_id,
                            agent=ctx.agent_id,
                        )
                    )
        if decision.allowed and decision.remember is not None and decision.remember == request.remember:
            self.remembered.add(decision.remember)
        return decision

    def _caveats(self, call: ToolCall, ctx: ToolContext) -> str:
        """What the wrappers below the gate say of the call (a change that cannot be undone), joined; blocking."""
        return "; ".join(self.inner.caveats(call, ctx)) if isinstance(self.inner, WrapperToolset) else ""

    def _allowed_earlier(self, judgement: Judgement) -> bool:
        """Whether an "always" answer given meanwhile covers the call (never a person-only one)."""
        return not judgement.person_only and judgement.remember is not None and judgement.remember in self.remembered

    def _save(self, decision: Decision, request: ApprovalRequest, judgement: Judgement, ctx: ToolContext) -> Decision:
        """Save the lasting rules the decision asks for; a failure to save is said in the decision's reason."""
        rules = request.lasting if decision.allowed else request.lasting_deny
        if decision.save != ("allow" if decision.allowed else "deny") or not rules:
            return replace(decision, save=None)
        try:
            save_lasting(working_directory(ctx), rules, decision.save)
        except (OSError, ConfigError) as exc:
            return replace(decision, save=None, reason=f"{decision.reason}, but hive {NOT_SAVED}: {exc}")
        if judgement.remember is not None:  # a person-only request has none to show, but a deny still holds
            (self.remembered if decision.allowed else self.refused).add(judgement.remember)
        return decision

    def _person_answers(self) -> bool:
        """Whether the approver is a person (the time they take is a wait, and the mode is hitl meanwhile)."""
        return self.approver is not None and bool(getattr(self.approver, "asks_a_person", True))

    def _waiting(self, ctx: ToolContext) -> AbstractContextManager[None]:
        """The question's time (and the wait for another question to end) is the call's wait, when a person answers."""
        if not self._person_answers():
            return nullcontext()
        return ctx.waits.waiting()

    def _pause(self, call: ToolCall, ctx: ToolContext) -> AbstractAsyncContextManager[None]:
        if not self._person_answers():
            return nullcontext()
        return self.modes.human_decision(f"approval needed for {call.name}", ctx.emit, ctx.agent_id)

    def _approval_lock(self) -> asyncio.Lock:
        """One question at a time (a person answers one prompt at a time), per event loop."""
        loop = asyncio.get_running_loop()
        if self._asking is None or self._asking[0] is not loop:
            self._asking = (loop, asyncio.Lock())
        return self._asking[1]

    async def _decide(self, request: ApprovalRequest) -> Decision:
        assert self.approver is not None
        try:
            decision = await self.approver.decide(request)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the approver failing must refuse the call, never allow it
            return Decision(allowed=False, reason=f"the approval failed ({type(exc).__name__}: {exc})")
        if not decision.allowed and not decision.reason:
            return Decision(allowed=False, reason="the user denied it")
        return decision


async def _request(
    call: ToolCall,
    spec: ToolSpec,
    judgement: Judgement,
    ctx: ToolContext,
    caveats: Callable[[ToolCall, ToolContext], str],
) -> ApprovalRequest:
    """What the approver is shown; a person-only request offers no "always" (only a "deny always" may stay)."""
    person_only = judgement.person_only
    return ApprovalRequest(
        call=call,
        spec=spec,
        summary=summarize_call(call),
        reason=judgement.reason,
        rule=judgement.rule,
        source=judgement.source,
        diff=await asyncio.to_thread(diff_for_call, call, ctx),
        warning=await asyncio.to_thread(caveats, call, ctx),
        remember=None if person_only else judgement.remember,
        lasting=() if person_only else judgement.lasting,
        lasting_deny=judgement.lasting_deny,
        agent=ctx.agent_id,
        person_only=person_only,
    )


def _refusal(call: ToolCall, reason: str) -> ToolResult:
    return ToolResult.error(f"The {call.name} call was not run: {reason}.")
