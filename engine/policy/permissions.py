"""The permission policy: a tool call's subjects judged by the rule book, one verdict for the call.

Every subject must be allowed for the call to be allowed; one deny denies the whole call; anything
that cannot be understood or known before the call runs (a shell construct the parser rejects, a
command name held in a variable) is asked, never allowed. With ``ask_before_delete`` on, a command
that deletes files is asked even when a rule allows it, and so is any change to hive's own
configuration, to what git runs by itself or to the files that instruct agents (see
:mod:`engine.policy.protected`), whatever the rules say.

An ask about a call that changes such a protected path is *person-only* (``Judgement.person_only``):
the approval gate puts it to a person every time, and ``--yes`` or an "always" answer never approves it.

Whether shell commands run in the OS sandbox is part of the configuration
(:attr:`PermissionConfig.sandboxed`, set by ``load_permissions(cwd, sandboxed=...)``): the built-in
defaults allow running the project's own code only when they do.
"""

from __future__ import annotations

from engine.events import ToolCall
from engine.policy.config import PermissionConfig
from engine.policy.gate import Judgement
from engine.policy.local_rules import LastingRule, lasting_candidates, saved_layer
from engine.policy.rules import Action, Finding, Layer, RuleBook, worst
from engine.policy.subjects import CallSubjects, subjects_for
from engine.tools.base import ToolContext, ToolSpec

PARSER_SOURCE = "hive's shell analysis"
PROTECTED_SOURCE = "hive's protected paths"


class PermissionPolicy:
    """Judges tool calls by the permission rules of a :class:`PermissionConfig`."""

    def __init__(self, config: PermissionConfig) -> None:
        self.config = config

    @property
    def sandboxed(self) -> bool:
        """Whether the rules in force were chosen for commands that run in the OS sandbox."""
        return self.config.sandboxed

    def judge(self, spec: ToolSpec, call: ToolCall, ctx: ToolContext) -> Judgement:
        """The verdict on ``call`` (see the module docstring)."""
        return self.judge_call(call, ctx, spec)

    def judge_call(self, call: ToolCall, ctx: ToolContext, spec: ToolSpec | None = None) -> Judgement:
        """The verdict on ``call``, whether or not a tool of that name exists (``spec`` tells what it is)."""
        subjects = subjects_for(call, ctx, spec)
        if subjects.invalid:
            return Judgement(verdict="deny", reason=subjects.invalid, source="the call's arguments")
        findings = self._findings(subjects)
        decisive = worst(findings)
        if decisive is None:  # a shell line that runs nothing (a comment), a trusted file no rule is about
            return Judgement(verdict="allow", reason="no rule is about it", remember=subjects.remember)
        asked = decisive.action == "ask"
        protected = _protection(subjects) if asked else ""
        return Judgement(
            verdict=decisive.action,
            reason=_with_protection(_reason(decisive), protected),
            rule=decisive.rule.describe() if decisive.rule else None,
            source=decisive.source,
            remember=subjects.remember,
            lasting=self._lasting(subjects, findings, "allow") if asked and not protected else (),
            lasting_deny=self._lasting(subjects, findings, "deny") if asked else (),
            person_only=bool(protected),
        )

    def _lasting(self, subjects: CallSubjects, findings: list[Finding], action: Action) -> tuple[LastingRule, ...]:
        """The exact rules an "always in this project" answer would save with ``action``.

        Empty unless saving them would give the call that verdict next time (an allow cannot lift
        what is asked whatever the rules say: protected paths, deletions, what cannot be parsed).
        """
        rules = lasting_candidates([f for f in findings if action == "allow" or f.source != PARSER_SOURCE])
        if rules is None or self._verdict_with(subjects, saved_layer(rules, action)) != action:
            return ()
        return rules

    def _verdict_with(self, subjects: CallSubjects, layer: Layer) -> str | None:
        book = RuleBook((layer, *self.config.book.layers))
        decisive = worst(self._findings(subjects, book))
        return decisive.action if decisive else None

    def _findings(self, subjects: CallSubjects, book: RuleBook | None = None) -> list[Finding]:
        book = book or self.config.book
        problems = [Finding(action="ask", reason=problem, source=PARSER_SOURCE) for problem in subjects.problems]
        judged = [_protection_check(f) for f in book.judge_all(subjects.subjects)]
        if book.ask_before_delete:
            judged = [_deletion_check(f) for f in judged]
        return problems + judged  # problems first: among equal asks, they explain best


def _protection(subjects: CallSubjects) -> str:
    """Why the call changes a protected path (the first one it changes), or "" when it changes none."""
    return next((subject.protected for subject in subjects.subjects if subject.protected), "")


def _with_protection(reason: str, protected: str) -> str:
    """``reason``, followed by the protection when another finding decided (a person must see both)."""
    if not protected or protected in reason:
        return reason
    return f"{reason}; {protected}"


def _deletion_check(finding: Finding) -> Finding:
    subject = finding.subject
    if finding.action != "allow" or subject is None or not subject.deletes:
        return finding
    reason = f"{subject.shown} deletes files and ask_before_delete is on"
    return Finding(action="ask", subject=subject, rule=finding.rule, reason=reason, source=finding.source)


def _protection_check(finding: Finding) -> Finding:
    subject = finding.subject
    if finding.action != "allow" or subject is None or not subject.protected:
        return finding
    return Finding(action="ask", subject=subject, rule=finding.rule, reason=subject.protected, source=PROTECTED_SOURCE)


def _reason(finding: Finding) -> str:
    rule = finding.rule
    subject = finding.subject
    if subject is None or finding.source in (PARSER_SOURCE, PROTECTED_SOURCE):
        return finding.reason
    if rule is None:
        return f"{finding.reason}; the default action is {finding.action}"
    if "ask_before_delete" in finding.reason:
        return finding.reason
    why = f": {rule.reason}" if rule.reason else ""
    return f"{subject.shown} matches {rule.describe()}{why}"
