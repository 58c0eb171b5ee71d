"""Finding the secrets in a text and replacing each with its marker.

The ruleset is built the first time a text is scanned (not when hive starts), once per process:
detect-secrets' pattern plugins, then hive's rules, then detect-secrets' keyword plugin. Findings
that overlap are joined into one replacement, named by the earliest of them in that order (the
values of secret variables before every rule), so a token beside the word ``password`` is named
by its own kind, not by the keyword.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

from engine.redaction.marker import marker
from engine.redaction.regex import compile_literals
from engine.redaction.ruleset import Finding, RuleSet, Text

VALUE_RANK = -1
"""The rank of an exact value's finding: it names any span it shares."""


@functools.cache
def default_rules(*, python_only: bool = False) -> RuleSet:
    """detect-secrets' rules and hive's (``python_only``: all run by Python's ``re``)."""
    from engine.redaction.detect_secrets_rules import keyword_rules, pattern_rules
    from engine.redaction.hive_rules import HIVE_RULES

    return RuleSet([*pattern_rules(), *HIVE_RULES, *keyword_rules()], python_only=python_only)


class ValueMatcher:
    """Finds the exact values of ``values.secret_values`` in encoded text."""

    def __init__(self, values: tuple[tuple[str, str], ...]) -> None:
        self._kinds = {value.encode(): kind for kind, value in values}
        self._pattern = compile_literals([value for _, value in values])

    def findings(self, raw: bytes) -> Iterator[Finding]:
        """Every occurrence of a value, with its variable's name as the kind."""
        if self._pattern is None:
            return
        for match in self._pattern.finditer(raw):
            yield Finding(match.start(0), match.end(0), self._kinds[match.group(0)], VALUE_RANK)


class Redactor:
    """Replaces what the rules and the known secret values find in a text."""

    def __init__(self, rules: RuleSet, values: ValueMatcher) -> None:
        self.rules = rules
        self.values = values

    def findings(self, text: str) -> list[Finding]:
        """The secrets in ``text`` as spans of its UTF-8 bytes, in order, overlaps joined."""
        return self._findings(Text(_encode(text)))

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``[redacted: KIND]`` (``text`` itself when none is found)."""
        encoded = Text(_encode(text))
        findings = self._findings(encoded)
        if not findings:
            return text
        pieces, done = [], 0
        for finding in findings:
            pieces += [encoded.raw[done : finding.start], marker(finding.kind).encode()]
            done = finding.end
        pieces.append(encoded.raw[done:])
        return _decode(b"".join(pieces))

    def _findings(self, text: Text) -> list[Finding]:
        return _joined([*self.values.findings(text.raw), *self.rules.findings(text)])


@functools.cache
def redactor_for(values: tuple[tuple[str, str], ...]) -> Redactor:
    """The redactor with the default rules and ``values`` (one per set of values, kept for the process)."""
    return Redactor(default_rules(), ValueMatcher(values))


def _joined(findings: Iterable[Finding]) -> list[Finding]:
    """Overlapping findings as one, named by the finding of the lowest rank among them."""
    joined: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.start, -f.end, f.rank)):
        if joined and finding.start < joined[-1].end:
            last = joined[-1]
            named = last if last.rank <= finding.rank else finding
            joined[-1] = Finding(last.start, max(last.end, finding.end), named.kind, named.rank)
        else:
            joined.append(finding)
    return joined


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # a span cut a character in two: show the rest as U+FFFD
        return raw.decode("utf-8", "replace")
