"""Fitting the fixed part (instructions and tool schemas) into a small window, step by step, on real tool schemas."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.context.fixed_part import (
    BRIEF_INSTRUCTIONS,
    CORE_TOOLS,
    Counting,
    WindowTooSmall,
    compact_schema,
    compact_tool,
    first_sentence,
    fit_fixed_part,
)
from engine.instructions import BASE_INSTRUCTIONS
from engine.tools.builtin import builtin_tools

TOOLS = [tool.spec.to_openai() for tool in builtin_tools()]
CHARS = Counting(instructions=len, tools=lambda tools: len(json.dumps(list(tools))))
"""Counted in characters: the steps do not depend on the tokenizer."""


def names(tools: Any) -> list[str]:
    return [t["function"]["name"] for t in tools]


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Read a file. Lines are numbered.", "Read a file."),
        ("Run a command\nin the shell", "Run a command"),
        ("No end", "No end"),
        ("x" * 200, "x" * 159 + "…"),
        (None, ""),
    ],
)
def test_the_first_sentence_is_kept(text: object, first: str) -> None:
    assert first_sentence(text) == first


def test_a_compact_schema_keeps_names_types_and_required_keys_and_drops_optional_detail() -> None:
    schema = {
        "type": "object",
        "title": "Args",
        "properties": {
            "path": {"type": "string", "description": "The file. Relative to the project.", "examples": ["a.py"]},
            "limit": {"type": "integer", "description": "How many lines at most."},
            "tags": {"type": "array", "items": {"type": "string", "description": "A tag."}},
        },
        "required": ["path"],
    }
    assert compact_schema(schema, required=True) == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The file."},
            "limit": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["path"],
    }


def test_every_builtin_tool_gets_smaller_and_keeps_its_name_and_required_keys() -> None:
    for tool in TOOLS:
        compacted = compact_tool(tool)
        assert len(json.dumps(compacted)) < len(json.dumps(tool))
        assert compacted["function"]["name"] == tool["function"]["name"]
        required = tool["function"]["parameters"].get("required")
        assert compacted["function"]["parameters"].get("required") == required


def full_size() -> int:
    return CHARS.fixed(BASE_INSTRUCTIONS, TOOLS)


def fit(budget: float, window: int = 100_000, **kwargs: Any) -> Any:
    return fit_fixed_part(BASE_INSTRUCTIONS, TOOLS, budget=budget, window=window, counting=CHARS, **kwargs)


def test_a_fixed_part_within_the_budget_is_sent_whole() -> None:
    fitted = fit(full_size())
    assert fitted.steps == () and fitted.tools == tuple(TOOLS) and fitted.instructions == BASE_INSTRUCTIONS


def test_compact_schemas_come_first() -> None:
    compacted = CHARS.fixed(BASE_INSTRUCTIONS, [compact_tool(t) for t in TOOLS])
    fitted = fit(compacted)
    assert fitted.steps == ("compact schemas",) and names(fitted.tools) == names(TOOLS)


def test_then_fewer_tools_dropping_the_lowest_ranked_and_keeping_the_core_and_used_ones() -> None:
    compacted = CHARS.fixed(BASE_INSTRUCTIONS, [compact_tool(t) for t in TOOLS])
    ranking = ["grep_files", "todo_write"]
    fitted = fit(compacted - 1, ranking=ranking, keep=["list_directory"])
    assert fitted.steps == ("compact schemas", "fewer tools") and fitted.tokens <= compacted - 1
    offered = names(fitted.tools)
    assert set(CORE_TOOLS) | {"list_directory"} <= set(offered) and len(offered) < len(TOOLS)
    dropped = set(names(TOOLS)) - set(offered)
    assert "grep_files" not in dropped or "todo_write" in dropped, "the best ranked is dropped last"


def test_then_shorter_instructions_and_else_a_clear_refusal_naming_both_sizes() -> None:
    core = [compact_tool(t) for t in TOOLS if t["function"]["name"] in CORE_TOOLS]
    smallest = CHARS.fixed(BRIEF_INSTRUCTIONS, core)
    fitted = fit(smallest)
    assert fitted.steps[-1] == "shorter instructions" and fitted.instructions == BRIEF_INSTRUCTIONS
    assert sorted(names(fitted.tools)) == sorted(CORE_TOOLS)
    with pytest.raises(WindowTooSmall) as refused:
        fit(smallest - 1, window=smallest - 1)
    assert str(refused.value).startswith(
        f"the model's window is {smallest - 1:,} tokens; hive's instructions and the smallest tool set take "
        f"{smallest:,}"
    )
