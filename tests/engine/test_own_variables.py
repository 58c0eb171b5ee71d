"""Variables hive sets for its own libraries stay out of what its children inherit; the user's never change."""

from __future__ import annotations

import os

import pytest

from engine.own_variables import inherited_environment, set_for_this_process


def test_a_variable_set_for_this_process_is_not_inherited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HIVE_TEST_OWN_SWITCH", raising=False)
    set_for_this_process("HIVE_TEST_OWN_SWITCH", "on")
    assert os.environ["HIVE_TEST_OWN_SWITCH"] == "on"
    assert "HIVE_TEST_OWN_SWITCH" not in inherited_environment()
    assert inherited_environment({"HIVE_TEST_OWN_SWITCH": "on", "PATH": "/bin"}) == {"PATH": "/bin"}


def test_the_users_value_is_kept_and_inherited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIVE_TEST_USER_SWITCH", "mine")
    set_for_this_process("HIVE_TEST_USER_SWITCH", "hive's")
    assert os.environ["HIVE_TEST_USER_SWITCH"] == "mine"
    assert inherited_environment()["HIVE_TEST_USER_SWITCH"] == "mine"


def test_a_value_changed_after_hive_set_it_is_inherited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HIVE_TEST_CHANGED_SWITCH", raising=False)
    set_for_this_process("HIVE_TEST_CHANGED_SWITCH", "on")
    monkeypatch.setenv("HIVE_TEST_CHANGED_SWITCH", "off")
    assert inherited_environment()["HIVE_TEST_CHANGED_SWITCH"] == "off"
