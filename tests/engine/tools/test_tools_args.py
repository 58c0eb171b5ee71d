"""A tool's arguments as a model sends them: checked against the tool's record, each problem named by its key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import pytest
from msgspec import Meta

from engine.tools.args import ToolArgs
from engine.tools.base import ArgsTool, ToolContext, ToolResult, schema_for
from engine.tools.todo import TodoWriteArgs

Call = Callable[..., ToolResult]


class Step(ToolArgs, frozen=True):
    note: str = ""


class RepeatArgs(ToolArgs, frozen=True):
    word: Annotated[str, Meta(description="The word to repeat.")]
    times: Annotated[int, Meta(ge=1, description="How often.")] = 2
    steps: list[Step] = []


class RepeatTool(ArgsTool[RepeatArgs]):
    name = "repeat"
    description = "Repeat a word."
    args_model = RepeatArgs

    async def execute(self, args: RepeatArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(" ".join([args.word] * args.times) + "".join(step.note for step in args.steps))


def test_null_means_not_given_and_a_number_in_a_string_is_taken_as_the_number(call: Call) -> None:
    assert call(RepeatTool(), word="hi", times=None).output == "hi hi"
    assert call(RepeatTool(), word="hi", times="3").output == "hi hi hi"
    assert call(RepeatTool(), word="hi", times=1, steps=[{"note": None}, {"note": "!"}]).output == "hi!"


@pytest.mark.parametrize(
    ("arguments", "start"),
    [
        ({"word": "hi", "colour": "red"}, "Invalid arguments for repeat: colour: unknown key"),
        ({"times": 3}, "Invalid arguments for repeat: word: required but missing"),
        ({"word": "hi", "times": "many"}, "Invalid arguments for repeat: times: should be an integer"),
        ({"word": "hi", "times": 0}, "Invalid arguments for repeat: times: should be an integer >= 1"),
        ({"word": "hi", "steps": [{"tone": "loud"}]}, "Invalid arguments for repeat: steps.0.tone: unknown key"),
    ],
)
def test_each_problem_is_an_error_result_naming_its_key(call: Call, arguments: dict[str, Any], start: str) -> None:
    result = call(RepeatTool(), **arguments)
    assert result.success is False
    assert result.output.startswith(start)


def test_the_schema_writes_nested_records_out_and_keeps_the_constraints() -> None:
    schema = schema_for(RepeatArgs)
    assert schema["properties"]["times"] == {"description": "How often.", "type": "integer", "minimum": 1, "default": 2}
    assert schema["properties"]["steps"]["items"]["properties"] == {"note": {"type": "string", "default": ""}}
    assert schema["required"] == ["word"] and schema["additionalProperties"] is False
    status = schema_for(TodoWriteArgs)["properties"]["todos"]["items"]["properties"]["status"]
    assert status["type"] == "string" and set(status["enum"]) == {"pending", "in_progress", "completed"}
