"""detect-secrets' plugins as the redaction's rules: each plugin's own regexes, read as it reads them.

Every plugin that finds secrets by pattern (detect-secrets' ``RegexBasedDetector``: AWS, GitHub,
GitLab, Slack, Stripe, OpenAI, npm, PyPI, JWT, private keys, passwords in URLs...) gives its
``denylist``, and the marker names the plugin's class. Of the other plugins:

- ``KeywordDetector`` (a value beside a word such as ``password``, ``secret`` or ``api_key``) gives
  the regexes it uses for a file of unknown type, where the value is quoted; and the ones it uses for
  configuration files (``KEY=value``, ``key: value``: ``.env`` files, shell exports, INI), for a value
  that is random by the Base64 plugin's own measure and limit. Tool output has no file type, and an
  unquoted value beside ``password`` in code is mostly a variable's name.
- ``Base64HighEntropyString`` and ``HexHighEntropyString`` on their own (any random-looking quoted
  string) are left out: tool output is full of hashes, commit ids and encoded data that are no secret.
- ``IPPublicDetector`` is left out: an address is not a credential.

detect-secrets' default filters judge each finding as they judge a line of a file: sequential
strings, UUIDs, templates (``{...}``, ``<...>``, ``${...}``), values starting with ``$`` or holding no
letter; for the keyword plugin's finds also ids and indirect references (``key = get_key()``), which
do not apply to a token of a known shape wherever it stands. The inline ``pragma: allowlist secret``
is not honoured: a file does not get to let its own secrets through.

detect-secrets is imported here, at the first tool result, never as hive starts.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from typing import cast

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.filters import heuristic
from detect_secrets.plugins import keyword
from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

from engine.redaction.hive_rules import is_placeholder
from engine.redaction.ruleset import Rule

# detect-secrets' logging module sends Python's warnings to logging as it loads; hive's stay as they were.
logging.captureWarnings(False)

LEFT_OUT = frozenset({"IPPublicDetector"})
"""Pattern plugins that find what is not a credential."""

KEYWORD_KIND = "KeywordDetector"


def pattern_rules() -> list[Rule]:
    """One rule per regex of each pattern plugin, by the plugins' names; the assignment regexes last.

    Some plugins read a value beside a word (``cloudant_password = ...``, ``api_key = '<44
    characters>'`` for IBM Cloud): where one of those and a plugin that knows a token by its shape
    find the same secret, the shape names it.
    """
    plugins: list[type[BasePlugin]] = sorted(
        get_mapping_from_secret_type_to_class().values(), key=lambda plugin: plugin.__name__
    )
    rules = [
        rule
        for plugin in plugins
        if issubclass(plugin, RegexBasedDetector) and plugin.__name__ not in LEFT_OUT
        for rule in _plugin_rules(plugin)
    ]
    return sorted(rules, key=lambda rule: rule.source.startswith(_assignment_start()))


def keyword_rules() -> list[Rule]:
    """The keyword plugin's regexes: for quoted values as they are, for unquoted ones when random-looking."""
    detector = keyword.KeywordDetector()
    quoted = functools.partial(_keyword_accepted, detector, None)
    random_only = functools.partial(_keyword_accepted, detector, Base64HighEntropyString())
    rules = [_keyword_rule(pattern, group, quoted) for pattern, group in _quoted_regexes().items()]
    for pattern, group in keyword.CONFIG_DENYLIST_REGEX_TO_GROUP.items():
        if pattern not in _quoted_regexes():
            rules.append(_keyword_rule(pattern, group, random_only))
    return rules


@functools.cache
def _assignment_start() -> str:
    """How the regexes made by detect-secrets' ``build_assignment_regex`` begin."""
    marker = "(?:hive-marker)"
    return str(RegexBasedDetector.build_assignment_regex(marker, "", "").pattern).split(marker)[0]


def _plugin_rules(plugin: type[RegexBasedDetector]) -> Iterator[Rule]:
    check: Callable[[str], bool] | None = getattr(plugin, "is_formally_valid", None)  # the JWT plugin's check
    accept = functools.partial(_pattern_accepted, check)
    patterns = cast(Iterable[re.Pattern[str]], plugin.denylist)  # a class attribute, though declared a property
    for pattern in patterns:
        yield Rule(kind=plugin.__name__, source=pattern.pattern, flags=pattern.flags, accept=accept)


def _quoted_regexes() -> dict[re.Pattern[str], int]:
    return keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP


def _keyword_rule(pattern: re.Pattern[str], group: int, accept: Callable[[str, str], bool]) -> Rule:
    return Rule(kind=KEYWORD_KIND, source=pattern.pattern, flags=pattern.flags, groups=(group,), accept=accept)


def _filtered(secret: str) -> bool:
    """detect-secrets' default filters that judge a secret by itself, and hive's placeholders."""
    return (
        heuristic.is_sequential_string(secret)
        or heuristic.is_potential_uuid(secret)
        or heuristic.is_templated_secret(secret)
        or heuristic.is_prefixed_with_dollar_sign(secret)
        or heuristic.is_not_alphanumeric_string(secret)
        or is_placeholder(secret)
    )


def _pattern_accepted(check: Callable[[str], bool] | None, secret: str, line: str) -> bool:
    return not _filtered(secret) and (check is None or check(secret))


def _keyword_accepted(detector: BasePlugin, entropy: Base64HighEntropyString | None, secret: str, line: str) -> bool:
    if _filtered(secret) or heuristic.is_indirect_reference(line):
        return False
    if heuristic.is_likely_id_string(secret, line, detector):
        return False
    return entropy is None or entropy.calculate_shannon_entropy(secret) > entropy.entropy_limit
