"""Rules saved from "always in this project" answers, in the project's ``.ironhive/permissions.local.yaml``.

hive writes that file only when the person answers an approval with "always in this project" (or
"deny always in this project"). Each answer saves exact rules (``exact: true``: the one path,
command or tool name shown, never a wildcard) for the subjects the rules asked about. The file is
rewritten atomically, keeping its earlier entries, and in a git repository it is listed in
``.ironhive/.gitignore`` so it stays out of version control. It loads as one more layer of rules
(see :func:`engine.policy.config.load_permissions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.config_files import read_document
from engine.paths import project_dir
from engine.policy.config import LOCAL_NAME
from engine.policy.rules import CATEGORIES, Action, Category, Finding, Layer, Rule, Subject
from engine.tools.base import FileToolOptions
from engine.tools.files import write_text_atomic

LOCAL_SOURCE = "always in this project"
HEADER = (
    "# Written by hive when you answer an approval with 'always in this project'.\n"
    "# Rules here are exact (the one command, path or tool shown); edit or delete them freely.\n"
    "# Local to this checkout: keep this file out of version control.\n"
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
    """Where the project's saved rules live."""
    return project_dir(cwd) / LOCAL_NAME


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

    text = HEADER + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1000)
    write_text_atomic(path, text, FileToolOptions())
    _keep_out_of_git(path)
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


def _keep_out_of_git(path: Path) -> None:
    """In a git repository, list the local file in ``.ironhive/.gitignore`` (created if missing)."""
    root = path.parent.parent
    if not any((folder / ".git").exists() for folder in (root, *root.parents)):
        return
    ignore = path.parent / ".gitignore"
    existing = ignore.read_text(encoding="utf-8") if ignore.is_file() else ""
    if LOCAL_NAME in (line.strip().lstrip("/") for line in existing.splitlines()):
        return
    prefix = "" if not existing or existing.endswith("\n") else "\n"
    write_text_atomic(ignore, f"{existing}{prefix}{LOCAL_NAME}\n", FileToolOptions())
