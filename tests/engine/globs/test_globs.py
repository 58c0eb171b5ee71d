"""hive's one glob language: the rules, the search tools, hook matchers and MCP filters read a pattern alike."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.errors import ConfigError
from engine.globs import GlobError, name_glob, name_matches, path_glob
from engine.hooks.options import HookSpec
from engine.mcp.config import load_plugins_file
from engine.policy import patterns as rules
from engine.policy.permission_files import load_permissions_file
from engine.tools.globs import GlobMatcher
from tests.engine.globs.legacy import policy_matches, policy_name_matches, search_matches

CASES = settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), database=None)

# (pattern, relative path, matches): the language as README documents it, for every caller that takes paths.
PATH_TABLE = [
    ("src/{a,{b,c}}.py", "src/c.py", True),
    ("src/{a,{b,c}}.py", "src/a.py", True),
    ("src/{a,{b,c}}.py", "src/{b.py", False),
    ("a\\*b.py", "a*b.py", True),
    ("a\\*b.py", "axb.py", False),
    ("a\\*b.py", "sub/a*b.py", True),
    ("{name}.txt", "{name}.txt", True),
    ("{name}.txt", "name.txt", False),
    ("\\{a,b}.txt", "{a,b}.txt", True),
    ("{a\\,b,c}.txt", "a,b.txt", True),
    ("*.py", "deep/down/x.py", True),
    ("*", ".env", True),
    ("src/*.py", "src/pkg/a.py", False),
    ("src/**", "src", True),
    ("src/**", "src/a/b.py", True),
    ("**/secrets/**", "a/secrets/b", True),
    ("build/", "build/out.o", True),
    ("[!a]*.md", "b.md", True),
    ("src[!x]a.py", "src/a.py", False),
    ("[a-c].md", "b.md", True),
    ("src/**.py", "src/a/b.py", True),
    ("./src/*.py", "src/a.py", True),
    ("line*", "line\nbreak", True),
]


@pytest.mark.parametrize(("pattern", "path", "expected"), PATH_TABLE)
def test_the_rules_and_the_search_tools_read_a_path_pattern_alike(pattern: str, path: str, expected: bool) -> None:
    assert rules.path_matches(pattern, path) is expected
    assert GlobMatcher(pattern).matches(path) is expected


@pytest.mark.parametrize(
    ("pattern", "name", "expected"),
    [
        ("{write,edit}_file", "edit_file", True),
        ("mcp__*", "mcp__gh__issues/list", True),
        ("get-?um", "get-sum", True),
        ("Write_file", "write_file", False),
        ("[!w]*", "write_file", False),
        ("a\\*", "a*", True),
        ("a\\*", "ab", False),
    ],
)
def test_hook_matchers_and_tool_filters_read_a_name_pattern_alike_and_match_case_exactly(
    pattern: str, name: str, expected: bool
) -> None:
    hook = HookSpec(event="pre_tool", command="true", matcher=f"nothing_else | {pattern}")
    assert hook.matches(name) is expected
    assert name_matches(pattern, name) is expected
    assert rules.name_matches(pattern, name) is expected


def test_rules_may_ignore_case_where_everything_else_matches_it_exactly() -> None:
    assert rules.path_matches("*.ENV", "a/b.env", ignore_case=True)
    assert not rules.path_matches("*.ENV", "a/b.env")
    assert not GlobMatcher("*.ENV").matches("a/b.env")


def test_a_pattern_with_a_backwards_range_is_an_error_everywhere(tmp_path: Path) -> None:
    with pytest.raises(GlobError, match="bad character range"):
        path_glob("[z-a].py")
    with pytest.raises(ValueError, match="Invalid glob pattern"):
        GlobMatcher("[z-a].py")
    with pytest.raises(msgspec.ValidationError, match=r"matcher '\[z-a\]'"):
        msgspec.convert({"event": "pre_tool", "command": "true", "matcher": "[z-a]"}, HookSpec)

    permissions = tmp_path / "permissions.yaml"
    permissions.write_text("permissions:\n  read:\n    - pattern: '[z-a].py'\n      action: deny\n")
    with pytest.raises(ConfigError, match="bad character range"):
        load_permissions_file(permissions)
    permissions.write_text("permissions:\n  bash:\n    - pattern: 'ls [z-a]'\n      action: deny\n")
    with pytest.raises(ConfigError, match="bad character range"):
        load_permissions_file(permissions)

    plugins = tmp_path / "plugins.yaml"
    plugins.write_text("plugins:\n  a:\n    command: srv\n    exclude_tools: ['[z-a]']\n")
    with pytest.raises(ConfigError) as caught:
        load_plugins_file(plugins)
    assert f"{plugins}:" in str(caught.value) and "bad character range" in str(caught.value)


def test_a_command_word_keeps_its_backslashes_plain() -> None:
    pattern = rules.command_pattern("grep '\\bfoo*'")
    assert pattern.matches(("grep", "\\bfoo.c"))
    assert not pattern.matches(("grep", "bfoo.c"))


# --- the new translator against the two it replaced ------------------------------------------

PATTERN_CHARS = st.sampled_from(["a", "b", ".", "/", "*", "**", "?", "[", "]", "!", "^", "{", "}", ",", "-"])
PATH_CHARS = st.sampled_from(["a", "b", ".", "/", "a/", "{", "}", ",", "-"])
PATTERNS = st.lists(PATTERN_CHARS, min_size=1, max_size=10).map("".join)
PATHS = st.lists(PATH_CHARS, min_size=1, max_size=10).map("".join).filter(lambda p: not p.startswith("/"))


@CASES
@given(PATTERNS, PATHS)
def test_where_the_old_rules_and_the_old_search_tools_agreed_the_one_translator_agrees(pattern: str, path: str) -> None:
    # Backslashes were literal for the rules and escapes for the search tools (the table above pins them),
    # and the rules misread "[!]" and "[^]" (a "]" right after them closes nothing, as the search tools knew).
    assume(pattern.strip() and "\\" not in pattern and "[!]" not in pattern and "[^]" not in pattern)
    before = policy_matches(pattern, path)
    assume(before is not None and before == search_matches(pattern, path))
    try:
        after = path_glob(pattern).fullmatch(path) is not None
    except GlobError:
        return  # a range the old code compiled differently, or not at all, is now one clear error
    assert after is before


NAME_CHARS = st.sampled_from(["a", "b", "_", "-", "/", "*", "?", "[", "]", "!"])
NAMES = st.lists(st.sampled_from(["a", "b", "_", "-", "/", "!", "]"]), max_size=8).map("".join)


@CASES
@given(st.lists(NAME_CHARS, min_size=1, max_size=8).map("".join), NAMES)
def test_name_patterns_mean_what_fnmatchcase_and_the_old_rules_meant(pattern: str, name: str) -> None:
    try:
        after = name_glob(pattern).fullmatch(name) is not None
    except GlobError:
        return
    assert after is fnmatch.fnmatchcase(name, pattern)
    old_rules = policy_name_matches(pattern, name)
    if old_rules is not None and "/" not in pattern:  # hive's own tool names never hold a "/"
        assert after is old_rules
