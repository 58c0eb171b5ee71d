"""Checking a rule's ``examples`` (``match`` / ``not_match``) against its pattern."""

from __future__ import annotations

import os

from engine.policy.patterns import command_pattern, name_matches, path_matches
from engine.policy.rules import Category
from engine.policy.shell import analyze


def example_problem(
    category: Category, pattern: str, example: str, expected: bool, ignore_case: bool = False
) -> str | None:
    """Why ``example`` does not behave as ``expected`` under ``pattern``, or None when it does."""
    if category == "bash":
        matched = _command_matches(pattern, example)
    elif category in ("read", "edit", "external_directory"):
        matched = path_matches(pattern, _normalized_path(category, example), ignore_case)
    else:
        matched = name_matches(pattern, example, ignore_case)
    if matched == expected:
        return None
    if expected:
        return f"example {example!r} does not match pattern {pattern!r}"
    return f"example {example!r} matches pattern {pattern!r} but is listed under not_match"


def _command_matches(pattern: str, example: str) -> bool:
    compiled = command_pattern(pattern)
    analysis = analyze(example)
    candidates = [command.words for command in analysis.commands] + list(analysis.pipelines)
    return any(compiled.matches(words) for words in candidates)


def _normalized_path(category: Category, example: str) -> str:
    path = os.path.expanduser(example) if category == "external_directory" else example
    normalized = os.path.normpath(path)
    return "." if normalized == "." else normalized.removeprefix("./")
