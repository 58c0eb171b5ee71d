"""The scrubber: exact known values replaced by their markers in what hive stores, nothing else touched."""

from __future__ import annotations

import json

from engine.redaction.scrubber import Scrubber

TOKEN = "ghp_" + "A1b2C3d4" * 4


def test_each_known_value_becomes_its_marker_and_the_rest_is_kept() -> None:
    scrub = Scrubber.from_environment({"GITHUB_TOKEN": TOKEN, "HOME": "/home/someone", "EDITOR": "vim"})
    assert scrub(f"push with {TOKEN} to origin") == "push with [redacted: $GITHUB_TOKEN] to origin"
    assert scrub("nothing secret here") == "nothing secret here"


def test_the_longest_value_wins_where_one_holds_another() -> None:
    scrub = Scrubber((("$LONG_TOKEN", "abcdefgh-ijklmnop"), ("$SHORT_TOKEN", "abcdefgh")))
    assert scrub("abcdefgh-ijklmnop / abcdefgh") == "[redacted: $LONG_TOKEN] / [redacted: $SHORT_TOKEN]"


def test_a_value_is_found_as_json_spells_it() -> None:
    value = 'pa"ss\\word-1234'
    scrub = Scrubber.from_environment({"DB_PASSWORD": value})
    line = json.dumps({"content": f"the password is {value}"})
    assert value not in json.loads(scrub(line))["content"]
    assert json.loads(scrub(line))["content"] == "the password is [redacted: $DB_PASSWORD]"


def test_short_values_and_no_values_change_nothing() -> None:
    scrub = Scrubber.from_environment({"PIN_TOKEN": "1234"}, known=[("model-api-key", None), ("x", "short")])
    assert not scrub and scrub("1234 short") == "1234 short"


def test_the_values_never_show_in_its_repr() -> None:
    assert TOKEN not in repr(Scrubber.from_environment({"GITHUB_TOKEN": TOKEN}))
