"""How hive reads a rule's matches (groups, tokens, lines) and runs it (RE2, its superset, Python's re)."""

from __future__ import annotations

import re

import pytest

from engine.redaction.regex import CandidateFilter, re2_pattern, re2_source, superset
from engine.redaction.ruleset import Rule, RuleSet, Text


def found(rule: Rule, text: str, *, python_only: bool = False) -> list[tuple[str, str]]:
    encoded = text.encode()
    findings = RuleSet([rule], python_only=python_only).findings(Text(encoded))
    return [(f.kind, encoded[f.start : f.end].decode()) for f in findings]


ENGINES = pytest.mark.parametrize("python_only", [False, True], ids=["re2", "re"])


@ENGINES
def test_a_group_holding_a_tokens_prefix_still_takes_the_whole_token(python_only: bool) -> None:
    rule = Rule(kind="demo", source=r"(dmo|dmx)_[a-z0-9]{8}")
    assert found(rule, "x dmo_ab12cd34 y", python_only=python_only) == [("demo", "dmo_ab12cd34")]


@ENGINES
def test_the_secret_is_each_non_empty_group_else_the_whole_match(python_only: bool) -> None:
    grouped = Rule(kind="pw", source=r"pw=([a-z0-9]{6}),")
    assert found(grouped, "user=alice pw=hunt22, next", python_only=python_only) == [("pw", "hunt22")]
    chosen = Rule(kind="second", source=r"(user)=(\w+)", groups=(2,))
    assert found(chosen, "user=alice", python_only=python_only) == [("second", "alice")]


@ENGINES
def test_the_space_and_quotes_a_pattern_takes_around_a_token_are_kept(python_only: bool) -> None:
    rule = Rule(kind="akc", source=r'(?:\s|=|"|^)AKC[a-z0-9]{6}(?:\s|"|$)')
    assert found(rule, 'k="AKCabc123"\nAKCdef456 end', python_only=python_only) == [
        ("akc", "AKCabc123"),
        ("akc", "AKCdef456"),
    ]


@ENGINES
def test_a_secret_runs_on_to_the_end_of_its_token(python_only: bool) -> None:
    rule = Rule(kind="sk", source=r"sk-[a-z]{4}")
    assert found(rule, "sk-abcdefgh-ij_k9. more", python_only=python_only) == [("sk", "sk-abcdefgh-ij_k9")]


@ENGINES
def test_a_rule_with_lookarounds_is_confirmed_by_re_on_the_lines_its_superset_finds(python_only: bool) -> None:
    rule = Rule(kind="tok", source=r"(?<![a-z])tok_[a-z0-9]{6}(?![a-z0-9])")
    text = "xtok_abc123\ntok_abc123\ntok_abc1234\n(tok_zzz999)"
    assert found(rule, text, python_only=python_only) == [("tok", "tok_abc123"), ("tok", "tok_zzz999")]


@ENGINES
def test_a_backreference_is_matched_within_one_line(python_only: bool) -> None:
    rule = Rule(kind="quoted", source=r"secret=(['\"])([a-z]+)(\1)", groups=(2,))
    assert found(rule, "secret='abc\ndef'", python_only=python_only) == []
    assert found(rule, 'secret=\'abc"\nsecret="def"', python_only=python_only) == [("quoted", "def")]


def test_a_rule_may_turn_a_secret_down_by_itself_and_its_line() -> None:
    rule = Rule(kind="demo", source=r"key=(\w{6,})", accept=lambda secret, line: "example" not in line)
    assert found(rule, "key=abcdef12\nkey=abcdef34 # example") == [("demo", "abcdef12")]


def test_the_superset_of_a_pattern_drops_lookarounds_and_widens_backreferences() -> None:
    assert superset(r"(?:(?<=\W)|(?<=^))a(?!b)(?=c)") == r"(?:|)a"
    assert superset(r"(['\"])(\w+)(\1)") == r"(['\"])(\w+)((?:['\"]))"
    assert superset(r"x{50,1024}y{2000}z{3}") == r"x{50,}y{1000,}z{3}"
    assert superset(r"\\1[\1(]") == r"\\1[\1(]"  # an escaped backslash, a class: no reference
    assert superset(r"[]\w(]+(?!\w)") == r"[]\w(]+"  # a "]" first in a class belongs to it
    assert superset(r"(?P<q>['\"])x\1") == r"(?P<q>['\"])x(?:['\"])"


@pytest.mark.parametrize(
    "source",
    [r"(?<!\w)ab(?=c)", r"(a|b)\1", r"(?:(?<=\W)|(?<=^))(key)=(['\"])(\w+)(\2)", r"q{1,1500}"],
)
def test_every_superset_is_taken_by_re2_and_matches_wherever_the_pattern_does(source: str) -> None:
    compiled = re2_pattern(re2_source(superset(source)))
    assert compiled is not None
    for text in ("abc", "aa", "x key='value'", "q" * 1200):
        if re.search(source, text):
            assert compiled.search(text.encode()) is not None


def test_the_candidate_filter_tells_which_patterns_match_in_any_case_of_their_literals() -> None:
    candidates = CandidateFilter(["(?m)abc[0-9]+", "(?mi)xyz", "(?m)[0-9]{3}"])
    assert candidates.matching(b"ABC1 XYZ") == [1]
    assert candidates.matching(b"abc1 xyz 123") == [0, 1, 2]
    assert candidates.matching(b"nothing") == []
