"""The trigger detector: does a request deserve a plan before work starts? Heuristics only, no model call."""

from __future__ import annotations

import re

from msgspec import Struct

LONG_REQUEST_WORDS = 60
MANY_FILES = 3
MANY_PARTS = 3
BIG_TASK_WORDS = (
    "refactor",
    "migrate",
    "migration",
    "rewrite",
    "restructure",
    "port ",
    "overhaul",
    "redesign",
    "across the codebase",
    "every file",
    "all files",
)
_FILE = re.compile(
    r"(?<![\w/.-])[\w./-]+\.(?:py|pyi|js|jsx|ts|tsx|go|rs|java|kt|c|h|cc|cpp|hpp|rb|php|cs|md|toml|ya?ml|json|sql|sh)\b"
)
_PARTS = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+", re.M)
_SEQUENCE = re.compile(r"\b(?:then|after that|afterwards|finally|and also)\b", re.I)


class PlanTrigger(Struct, frozen=True, kw_only=True):
    """Why a request deserves a plan."""

    reason: str
    """One short phrase, shown to the person (e.g. "it names 4 files")."""


def planning_trigger(request: str) -> PlanTrigger | None:
    """A reason to plan ``request`` first, or None when it looks like a single step."""
    lowered = request.lower()
    word = next((w.strip() for w in BIG_TASK_WORDS if w in lowered), None)
    if word is not None:
        return PlanTrigger(reason=f'it asks to "{word}"')
    files = set(_FILE.findall(request))
    if len(files) >= MANY_FILES:
        return PlanTrigger(reason=f"it names {len(files)} files")
    parts = len(_PARTS.findall(request)) or len(_SEQUENCE.findall(request)) + 1
    if parts >= MANY_PARTS:
        return PlanTrigger(reason=f"it has {parts} parts")
    if len(request.split()) >= LONG_REQUEST_WORDS:
        return PlanTrigger(reason=f"it is long ({len(request.split())} words)")
    return None
