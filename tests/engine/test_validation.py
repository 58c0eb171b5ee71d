"""Checking untrusted data against records: where the problem is, and a sentence saying what it is."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from msgspec import Meta

from engine.config.validation import Invalid, StrictRecord, convert, required_keys


class Step(StrictRecord, frozen=True):
    status: Literal["pending", "done"] = "pending"


class Plan(StrictRecord, frozen=True):
    title: Annotated[str, Meta(min_length=1)]
    rounds: Annotated[int, Meta(ge=1)] = 1
    share: Annotated[float, Meta(gt=0, le=1)] = 0.5
    steps: tuple[Step, ...] = ()
    mode: Literal["plan", "work"] | None = None
    limit: int | None = None
    folder: Path | None = None
    kind: Annotated[Literal["draft", "final"], Meta(description="How settled the plan is.")] = "draft"

    def __post_init__(self) -> None:
        if self.title == "later":
            raise ValueError("a plan needs a title that says what it does")


@pytest.mark.parametrize(
    ("data", "key", "problem"),
    [
        ({}, "title", "required but missing"),
        ({"title": "t", "colour": 1}, "colour", "unknown key"),
        ({"title": 3}, "title", "should be a string, not an integer"),
        ({"title": ""}, "title", "should be a string of length >= 1"),
        ({"title": "t", "rounds": 0}, "rounds", "should be an integer >= 1"),
        ({"title": "t", "share": 2}, "share", "should be a number <= 1.0"),
        ({"title": "t", "steps": "all"}, "steps", "should be a list, not a string"),
        (
            {"title": "t", "steps": [{}, {"status": "gone"}]},
            "steps.1.status",
            "should be 'done' or 'pending', not 'gone'",
        ),
        ({"title": "t", "steps": [{"state": "done"}]}, "steps.0.state", "unknown key"),
        ({"title": "t", "mode": "dance"}, "mode", "should be 'plan' or 'work', not 'dance'"),
        ({"title": "t", "folder": 3}, "folder", "should be a path (a string)"),
        ({"title": "t", "kind": "rough"}, "kind", "should be 'draft' or 'final', not 'rough'"),
        ({"title": "t", "limit": "many"}, "limit", "should be an integer, not a string"),
        ({"title": "later"}, "", "a plan needs a title that says what it does"),
        ("a plan", "", "should be a mapping, not a string"),
    ],
)
def test_each_misfit_names_its_key_and_says_what_is_wrong(data: Any, key: str, problem: str) -> None:
    with pytest.raises(Invalid) as caught:
        convert(data, Plan)
    assert (caught.value.key, caught.value.problem) == (key, problem)
    assert str(caught.value) == f"{key or '(top level)'}: {problem}"


def test_scalars_are_read_laxly_as_people_and_models_write_them() -> None:
    plan = convert({"title": "t", "rounds": "3", "share": "0.25", "limit": "7"}, Plan)
    assert (plan.rounds, plan.share, plan.limit) == (3, 0.25, 7)


def test_a_path_is_read_from_a_string() -> None:
    assert convert({"title": "t", "folder": "~/plans"}, Plan).folder == Path("~/plans")


def test_the_key_path_indexes_lists_by_number() -> None:
    with pytest.raises(Invalid) as caught:
        convert({"title": "t", "steps": [{}, {}, {"status": 1}]}, Plan)
    assert caught.value.loc == ("steps", 2, "status")


def test_required_keys_are_the_fields_without_a_default() -> None:
    assert required_keys(Plan) == ("title",)
    assert required_keys(Step) == ()
