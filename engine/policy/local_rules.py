"""Rules saved from "always in this project" answers: the person's own, kept in the user's config folder.

hive writes them only when the person answers an approval with "always in this project" (or "deny
always in this project"). Each answer saves exact rules (``exact: true``: the one path, command or
tool name shown, never a wildcard) for the subjects the rules asked about, in
``<user config>/saved-rules/<project>-<hash>.yaml``: one file per project root, outside the
repository, so a cloned repository cannot ship "answers" of its own and the sandbox (which hides the
user's config folder) cannot plant any. The file is rewritten atomically, keeping its earlier
entries, and loads as one more layer of rules (see :func:`engine.policy.config.load_permissions`).
An ``.ironhive/permissions.local.yaml`` inside a project (where earlier versions saved them) counts
only in a trusted project.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.config.files import read_document
from engine.paths import project_root
from engine.policy.config import saved_rules_file
from engine.policy.rules import CATEGORIES, Action, Category, Finding, Layer, Rule, Subject
from engine.private_files import make_private, private_dir
from engine.tools.base import FileToolOptions
from engine.tools.files import write_text_atomic

LOCAL_SOURCE = "always in this project"
HEADER = (
    "# Written by hive when you answer an approval with 'always in this project' in {root}.\n"
    "# Rules here are exact (the one command, path or tool shown); edit or delete them freely.\n"
)


class LastingRule(Struct, frozen=True):
    """One exact rule an "always in this project" answer would save."""

    category: Category
    pattern: str

    def describe(self) -> str:
        """``bash: git push origin main`` and the like, as the person is shown it."""
        return f"{self.category}: {self.pattern}"

    def as_rule(self, action: Action) -> Rule:
        """The rule as it will apply once saved."""
        return Rule(category=self.category, pattern=self.pattern, action=action, source=LOCAL_SOURCE, exact=True)


def lasting_candidates(findings: Sequence[Finding]) -> tuple[LastingRule, ...] | None:
    """The exact rules for the subjects that were asked about, or None when one of them cannot be written."""
    rules: list[LastingRule] = []
    for finding in findings:
        if finding.action == "allow":
            continue
        rule = _exact_rule(finding.subject)
        if rule is None:
            return None
        if rule not in rules:
            rules.append(rule)
    return tuple(rules) or None


def saved_layer(rules: Sequence[LastingRule], action: Action) -> Layer:
    """A layer holding ``rules`` with ``action``, to judge a call as if they were saved."""
    return Layer(source=LOCAL_SOURCE, rules=tuple(rule.as_rule(action) for rule in rules))


def _exact_rule(subject: Subject | None) -> LastingRule | None:
    if subject is None:
        return None
    if isinstance(subject.value, str):
        return LastingRule(subject.category, subject.value)
    if None in subject.value:
        return None
    return LastingRule(subject.category, subject.shown)


def local_file(cwd: Path) -> Path:
    """Where the saved rules of ``cwd``'s project live (in the user's config folder)."""
    return saved_rules_file(project_root(cwd))


def save_lasting(cwd: Path, rules: Sequence[LastingRule], action: Action) -> Path:
    """Add ``rules`` with ``action`` to the local file (replacing the same rules saved before) and return its path.

    A local file that exists but is broken is not overwritten: ``ConfigError`` names it.
    """
    path = local_file(cwd)
    document = _existing(path)
    section: dict[str, Any] = document.setdefault("permissions", {})
    for rule in rules:
        entries = [e for e in section.get(rule.category, []) if not _same(e, rule)]
        entries.append({"pattern": rule.pattern, "action": action, "exact": True})
        section[rule.category] = entries
    ordered = {c: section[c] for c in CATEGORIES if c in section} | section
    document["permissions"] = ordered
    import yaml  # only on the keypress that saves a rule

    text = HEADER.format(root=str(project_root(cwd)).replace("\n", " ")) + yaml.safe_dump(
        document, sort_keys=False, allow_unicode=True, width=1000
    )
    private_dir(path.parent)
    write_text_atomic(path, text, FileToolOptions())
    make_private(path)
    return path


def _existing(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    from engine.policy.permission_files import load_permissions_file  # only on the keypress that saves a rule

    load_permissions_file(path)  # raises ConfigError on a broken file, which is then left as it is
    data, _lines = read_document(path)
    return data if isinstance(data, dict) else {}


def _same(entry: object, rule: LastingRule) -> bool:
    return isinstance(entry, dict) and entry.get("exact") is True and entry.get("pattern") == rule.pattern
