"""Permission rules and how a verdict is reached.

A rule is a pattern, an action (allow, ask, deny), a priority and a reason, in one category. For a
subject (a path, a command, a tool name) every matching rule is considered: the highest priority
wins, and at equal priority the more restrictive action wins (deny over ask over allow). Rules come
in layers (the user's file, the project's file, the built-in defaults); a deny that wins in any
layer holds whatever the other layers say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from engine.policy.patterns import CommandWord, command_pattern, name_matches, path_matches

Action = Literal["allow", "ask", "deny"]
Category = Literal["read", "edit", "bash", "external_directory", "mcp_tools", "tools"]
CATEGORIES: tuple[Category, ...] = ("read", "edit", "bash", "external_directory", "mcp_tools", "tools")
PATH_CATEGORIES: frozenset[Category] = frozenset({"read", "edit", "external_directory"})
RESTRICTIVENESS: dict[Action, int] = {"allow": 0, "ask": 1, "deny": 2}


def stricter(a: Action, b: Action) -> Action:
    """The more restrictive of two actions."""
    return a if RESTRICTIVENESS[a] >= RESTRICTIVENESS[b] else b


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One rule of one category, with where it came from."""

    category: Category
    pattern: str
    action: Action
    priority: int = 0
    reason: str = ""
    source: str = "built-in defaults"
    """The file (``path:line``) the rule came from, or ``built-in defaults``."""

    def matches(self, subject: Subject) -> bool:
        """Whether the rule's pattern matches the subject's value."""
        if self.category in PATH_CATEGORIES:
            return isinstance(subject.value, str) and path_matches(self.pattern, subject.value)
        if self.category == "bash":
            pattern = command_pattern(self.pattern)
            return not isinstance(subject.value, str) and pattern.matches(subject.value)
        return isinstance(subject.value, str) and name_matches(self.pattern, subject.value)

    def describe(self) -> str:
        """``bash: git *`` and the like."""
        return f"{self.category}: {self.pattern}"


@dataclass(frozen=True, kw_only=True)
class Subject:
    """One thing a tool call touches, to be judged by the rules of one category."""

    category: Category
    value: str | tuple[CommandWord, ...]
    """A path (relative to the working directory, or absolute when outside it), a tool name, or command words."""
    shown: str
    """The subject as a person should see it."""
    decisive: bool = True
    """False when only matching rules count and no match means nothing (a wrapper, a tool-name rule of a file tool)."""
    only_restrictive: bool = False
    """True when only deny and ask rules may match (e.g. a command judged by its bare program name)."""
    deletes: bool = False
    protected: str = ""
    """Why an allow must still be asked whatever the rules say (e.g. the path holds hive's own rules)."""


@dataclass(frozen=True, kw_only=True)
class Finding:
    """The verdict on one subject and what decided it."""

    action: Action
    subject: Subject | None = None
    rule: Rule | None = None
    reason: str = ""
    source: str = ""


@dataclass(frozen=True, kw_only=True)
class Layer:
    """The rules of one file (or the built-in defaults)."""

    source: str
    rules: tuple[Rule, ...] = ()
    default_action: Action | None = None
    ask_before_delete: bool | None = None
    read_only_tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class RuleBook:
    """Layers of rules judged together; see the module docstring."""

    layers: tuple[Layer, ...] = field(default_factory=tuple)

    @property
    def default_action(self) -> tuple[Action, str]:
        """The action for subjects no rule matches, and where it was set (the most restrictive set value)."""
        chosen: tuple[Action, str] | None = None
        for layer in self.layers:
            if layer.default_action is not None and (
                chosen is None or stricter(layer.default_action, chosen[0]) != chosen[0]
            ):
                chosen = (layer.default_action, layer.source)
        return chosen or ("ask", "built-in default")

    @property
    def ask_before_delete(self) -> bool:
        """True unless a layer turns it off and none turns it on."""
        values = [layer.ask_before_delete for layer in self.layers if layer.ask_before_delete is not None]
        return True if not values else any(values)

    @property
    def read_only_tools(self) -> tuple[str, ...]:
        """Tool names (or patterns) declared read-only in any layer."""
        return tuple(dict.fromkeys(name for layer in self.layers for name in layer.read_only_tools))

    def rules(self, category: Category | None = None) -> list[Rule]:
        """Every rule (of one category), layer by layer."""
        return [r for layer in self.layers for r in layer.rules if category is None or r.category == category]

    def judge(self, subject: Subject) -> Finding | None:
        """The verdict on one subject; None for a non-decisive subject no rule matches."""
        winners = [w for layer in self.layers if (w := _layer_winner(layer, subject)) is not None]
        if winners:
            denied = next((w for w in winners if w.action == "deny"), None)
            rule = denied or max(winners, key=lambda r: (r.priority, RESTRICTIVENESS[r.action]))
            return Finding(action=rule.action, subject=subject, rule=rule, reason=rule.reason, source=rule.source)
        if not subject.decisive:
            return None
        action, source = self.default_action
        reason = f"no {subject.category} rule matches {subject.shown}"
        return Finding(action=action, subject=subject, reason=reason, source=source)

    def judge_all(self, subjects: Sequence[Subject]) -> list[Finding]:
        """The findings for every subject that has one."""
        return [f for subject in subjects if (f := self.judge(subject)) is not None]


def _layer_winner(layer: Layer, subject: Subject) -> Rule | None:
    best: Rule | None = None
    for rule in layer.rules:
        if rule.category != subject.category or not rule.matches(subject):
            continue
        if subject.only_restrictive and rule.action == "allow":
            continue
        if best is None or (rule.priority, RESTRICTIVENESS[rule.action]) > (
            best.priority,
            RESTRICTIVENESS[best.action],
        ):
            best = rule
    return best


def worst(findings: Sequence[Finding]) -> Finding | None:
    """The most restrictive finding (the first of equals), which decides a whole call."""
    chosen: Finding | None = None
    for finding in findings:
        if chosen is None or RESTRICTIVENESS[finding.action] > RESTRICTIVENESS[chosen.action]:
            chosen = finding
    return chosen
