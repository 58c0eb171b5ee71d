"""The selection rule: pins first, then the best scores above the threshold, within a budget kept above a floor."""

from __future__ import annotations

from engine.retrieval.select import SelectionRule, select_tools

NAMES = [f"t{i}" for i in range(10)]
SCORES = {name: 1.0 - i / 20 for i, name in enumerate(NAMES)}  # t0 1.0, t1 0.95, ... t9 0.55


def rule(max_tools: int, min_scored_slots: int, min_relevance_score: float = 0.3) -> SelectionRule:
    return SelectionRule(
        max_tools=max_tools, min_scored_slots=min_scored_slots, min_relevance_score=min_relevance_score
    )


def test_pins_come_first_and_the_scored_tools_fill_the_rest_of_max_tools() -> None:
    assert select_tools(NAMES, SCORES, ["t8"], rule(5, 2)) == ["t8", "t0", "t1", "t2", "t3"]


def test_pins_never_push_the_scored_tools_below_the_floor() -> None:
    # budget = max(floor 2, 5 - 4 pins) = 2: six tools, more than max_tools
    assert select_tools(NAMES, SCORES, ["t9", "t8", "t7", "t6"], rule(5, 2)) == ["t9", "t8", "t7", "t6", "t0", "t1"]


def test_the_floor_is_capped_at_max_tools() -> None:
    assert rule(5, 10).floor() == 5
    assert select_tools(NAMES, SCORES, ["t9", "t8", "t7"], rule(5, 10)) == [
        "t9",
        "t8",
        "t7",
        "t0",
        "t1",
        "t2",
        "t3",
        "t4",
    ]


def test_with_no_floor_pins_at_max_tools_leave_no_scored_slot() -> None:
    assert rule(3, 0).budget(3) == 0 and rule(3, 0).budget(5) == 0
    assert select_tools(NAMES, SCORES, ["t5", "t6", "t7"], rule(3, 0)) == ["t5", "t6", "t7"]


def test_tools_below_min_relevance_are_left_out_even_with_slots_free() -> None:
    scores = {"a": 0.9, "b": 0.3, "c": 0.29, "d": 0.0}
    assert select_tools(list(scores), scores, [], rule(4, 1)) == ["a", "b"]


def test_ties_keep_the_offered_order() -> None:
    scores = {"a": 0.5, "b": 0.7, "c": 0.5, "d": 0.7}
    assert select_tools(list(scores), scores, [], rule(3, 1)) == ["b", "d", "a"]


def test_pins_keep_their_order_once_each_and_unknown_pins_are_ignored() -> None:
    chosen = select_tools(NAMES, SCORES, ["t4", "missing", "t2", "t4"], rule(4, 1))
    assert chosen == ["t4", "t2", "t0", "t1"]
