"""The capability seam's targets hold (issue 30): measured from the source, never by timing.

benchmarks/structure.py prints the same figures; here they are held, so a change that crowds the
hallway again (Session grows, build_agent branches, a provider imports the composition root, the
CLI reaches past Session, fnmatch comes back) fails the suite on purpose.
"""

from __future__ import annotations

import pytest

from benchmarks.support.structure import measure


@pytest.fixture(scope="module")
def shape():  # type: ignore[no-untyped-def]
    return measure()


def test_session_and_build_agent_stay_small(shape) -> None:  # type: ignore[no-untyped-def]
    assert shape.session_lines <= 210
    assert 0 < shape.build_agent_lines <= 42
    assert shape.loop_lines <= 394  # engine/loop.py before the seam


def test_no_module_is_in_an_import_cycle_with_the_composition_root(shape) -> None:  # type: ignore[no-untyped-def]
    assert shape.root_cycles == ()


def test_the_terminal_never_reaches_past_the_session_into_the_loop(shape) -> None:  # type: ignore[no-untyped-def]
    assert shape.cli_reach_ins == ()


def test_one_glob_language(shape) -> None:  # type: ignore[no-untyped-def]
    assert shape.fnmatch_users == ()
    assert not shape.modules_over_400
