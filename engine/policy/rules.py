"""Permission rules and how a verdict is reached.

A rule is a pattern, an action (allow, ask, deny), a priority and a reason, in one category. For a
subject (a path, a command, a tool name) every matching rule is considered: the highest priority
wins, and at equal priority the more restrictive action wins (deny over ask over allow). Rules come
in layers (the user's file, the project's file, the project's local file, the built-in defaults); a
deny that wins in any layer holds whatever the other layers say, and otherwise an exact rule (one
literal path, command or name, as "always in this project" saves it) outranks the pattern rules of
the other layers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from msgspec import Struct, field
from msgspec.structs import replace

from engine.policy.patterns import CommandWord, command_pattern, exact_matches, name_matches, path_matches

Action = Literal["allow", "ask", "deny"]
Category = Literal["read", "edit", "bash", "external_directory", "mcp_tools", "tools"]
CATEGORIES: tuple[Category, ...] = ("read", "edit", "bash", "external_directory", "mcp_tools", "tools")
PATH_CATEGORIES: frozenset[Category] = frozenset({"read", "edit", "external_directory"})
RESTRICTIVENESS: dict[Action, int] = {"allow": 0, "ask": 1, "deny": 2}


class CommandJudge(Protocol):
    """A built-in rule's judge: the action and reason for a command, or None when it has no verdict on it."""

    def __call__(self, words: Sequence[CommandWord]) -> tuple[Action, str] | None: ...


def stricter(a: Action, b: Action) -> Action:
    """The more restrictive of two actions."""
    return a if RESTRICTIVENESS[a] >= RESTRICTIVENESS[b] else b


class Rule(Struct, frozen=True, kw_only=True):
    """One rule of one category, with where it came from."""

    category: Category
    pattern: str
    action: Action
    priority: int = 0
    reason: str = ""
    source: str = "built-in defaults"
    """The file (``path:line``) the rule came from, or ``built-in defaults``."""
    ignore_case: bool = False
    """Path and name rules: letters match whatever their case (``*.PEM`` is ``*.pem``)."""
    judge: CommandJudge | None = None
    """Built-in ``bash`` rules only: a command table decides the action for the commands the pattern matches."""
    exact: bool = False
    """The pattern is one literal path, command or name (no wildcards), as "always in this project" saves it."""

    def matches(self, subject: Subject) -> bool:
        """Whether the rule's pattern matches the subject's value."""
        if self.exact:
            return exact_matches(self.category, self.pattern, subject.value)
        if self.category in PATH_CATEGORIES:
            return isinstance(subject.value, str) and path_matches(self.pattern, subject.value, self.ignore_case)
        if self.category == "bash":
            pattern = command_pattern(self.pattern)
            return not isinstance(subject.value, str) and pattern.matches(subject.value)
        return isinstance(subject.value, str) and name_matches(self.pattern, subject.value, self.ignore_case)

    def resolve(self, subject: Subject) -> Rule | None:
        """This rule as it applies to ``subject`` (a table rule with the table's action), or None if it does not."""
        if not self.matches(subject):
            return None
        if self.judge is None or isinstance(subject.value, str):
            return self
        verdict = self.judge(subject.value)
        if verdict is None:
            return None
        return replace(self, action=verdict[0], reason=verdict[1])

    def describe(self) -> str:
        """``bash: git *`` and the like."""
        return f"{self.category}: {self.pattern}"


class Subject(Struct, frozen=True, kw_only=True):
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
    read_only_mcp: bool = False
    """An MCP tool whose server marks it read-only: without a matching rule, ``mcp_read_only`` decides."""
    untrusted_claim: bool = False
    """The read-only claim comes from an untrusted project's server: ``mcp_read_only: allow`` only asks."""
    protected: str = ""
    """Why an allow must still be asked whatever the rules say (e.g. the path holds hive's own rules)."""


class Finding(Struct, frozen=True, kw_only=True):
    """The verdict on one subject and what decided it."""

    action: Action
    subject: Subject | None = None
    rule: Rule | None = None
    reason: str = ""
    source: str = ""


class Layer(Struct, frozen=True, kw_only=True):
    """The rules of one file (or the built-in defaults)."""

    source: str
    rules: tuple[Rule, ...] = ()
    default_action: Action | None = None
    ask_before_delete: bool | None = None
    read_only_tools: tuple[str, ...] = ()
    mcp_read_only: Action | None = None
    """The action for MCP tools their server marks read-only, when no ``mcp_tools`` rule matches them."""


class RuleBook(Struct, frozen=True):
    """Layers of rules judged together; see the module docstring."""

    layers: tuple[Layer, ...] = field(default_factory=tuple)

    @property
    def default_action(self) -> tuple[Action, str]:
        """The action for subjects no rule matches, and where it was set (the most restrictive set value)."""
        return self._strictest(lambda layer: layer.default_action) or ("ask", "built-in default")

    @property
    def mcp_read_only(self) -> tuple[Action, str] | None:
        """The action for read-only MCP tools no rule matches, and where it was set (the most restrictive)."""
        return self._strictest(lambda layer: layer.mcp_read_only)

    def _strictest(self, value: Callable[[Layer], Action | None]) -> tuple[Action, str] | None:
        chosen: tuple[Action, str] | None = None
        for layer in self.layers:
            action = value(layer)
            if action is not None and (chosen is None or stricter(action, chosen[0]) != chosen[0]):
                chosen = (action, layer.source)
        return chosen

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
            exact = [w for w in winners if w.exact]
            rule = denied or max(exact or winners, key=lambda r: (r.priority, RESTRICTIVENESS[r.action]))
            return Finding(action=rule.action, subject=subject, rule=rule, reason=rule.reason, source=rule.source)
        if not subject.decisive:
            return None
        read_only = self.mcp_read_only if subject.read_only_mcp else None
        if read_only is not None:
            reason = f"its server marks {subject.shown} read-only and mcp_read_only is {read_only[0]}"
            if subject.untrusted_claim and read_only[0] == "allow":
                reason += ", but the server is the project's and the project is not trusted"
                return Finding(action="ask", subject=subject, reason=reason, source=read_only[1])
            return Finding(action=read_only[0], subject=subject, reason=reason, source=read_only[1])
        action, source = self.default_action
        reason = f"no {subject.category} rule matches {subject.shown}"
        return Finding(action=action, subject=subject, reason=reason, source=source)

    def judge_all(self, subjects: Sequence[Subject]) -> list[Finding]:
        """The findings for every subject that has one."""
        return [f for subject in subjects if (f := self.judge(subject)) is not None]


def _layer_winner(layer: Layer, subject: Subject) -> Rule | None:
    best: Rule | None = None
    for candidate in layer.rules:
        rule = candidate.resolve(subject) if candidate.category == subject.category else None
        if rule is None:
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
