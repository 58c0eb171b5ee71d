"""The trigger detector: big or multi-part requests deserve a plan; small ones do not."""

from __future__ import annotations

import pytest

from engine.planning.trigger import planning_trigger


@pytest.mark.parametrize(
    ("request_text", "reason"),
    [
        ("Refactor the config loader", 'it asks to "refactor"'),
        ("migrate the tests to pytest", 'it asks to "migrate"'),
        ("update app.py, cli.py and README.md for the new flag", "it names 3 files"),
        ("add the flag, then test it, then document it", "it has 3 parts"),
        ("Please:\n1. add the flag\n2. test it\n3. document it", "it has 3 parts"),
        ("word " * 60, "it is long (60 words)"),
    ],
)
def test_a_request_that_deserves_a_plan_says_why(request_text: str, reason: str) -> None:
    trigger = planning_trigger(request_text)
    assert trigger is not None and trigger.reason == reason


@pytest.mark.parametrize("request_text", ["fix the typo in README.md", "what does main.py do?", "run the tests"])
def test_a_small_request_needs_no_plan(request_text: str) -> None:
    assert planning_trigger(request_text) is None
